import Foundation
import Hummingbird

extension ResponseBody {
    /// The open file `handle`, `size` bytes long, sent 256 KiB at a time and closed at the end,
    /// as SelfDB's `StreamingResponse` sends a stored file: a file of any size never sits in
    /// memory, and its length goes out up front (`Content-Length`).
    static func streaming(_ handle: FileHandle, size: Int64) -> ResponseBody {
        ResponseBody(contentLength: Int(size)) { writer in
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 256 << 10), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }
}

extension FileHandle {
    /// The file at `url` opened for reading, with its size: what
    /// ``ResponseBody/streaming(_:size:)`` sends.
    static func forStreaming(_ url: URL) throws -> (size: Int64, handle: FileHandle) {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        return (size, try FileHandle(forReadingFrom: url))
    }
}
