import Foundation

/// The file parts of a `multipart/form-data` body, enough to read an upload the way
/// Starlette's form parser hands one to FastAPI's `UploadFile = File(...)`.
///
/// It reads the body in place (a spooled upload mapped from disk, say) and keeps where each file
/// part's bytes are, not a copy of them: a restore of any size costs no memory of its own.
struct MultipartForm {
    /// Where each file part's bytes are in the body, by field name (parts with a `filename`);
    /// plain fields are not kept.
    private(set) var files: [String: Range<Int>] = [:]

    /// Parses `body`; nil when `contentType` is not a multipart form. A multipart form without
    /// a boundary is Starlette's 400.
    init?(contentType: String?, body: UnsafeRawBufferPointer) throws(APIError) {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        guard let boundary = Self.parameter("boundary", in: contentType), !boundary.isEmpty else {
            throw APIError.badRequest("Missing boundary in multipart.")
        }
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Range<Int>] = []
        var cursor = 0
        var start: Int?
        while let found = Self.findDelimiter(delimiter, in: body, from: cursor) {
            if let start {
                // A part ends with CRLF before the next delimiter.
                var end = found
                if end >= start + 2, body[end - 2] == 0x0D, body[end - 1] == 0x0A { end -= 2 }
                parts.append(start..<max(start, end))
            }
            cursor = found + delimiter.count
            if cursor + 1 < body.count, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") { break }
            // Skip the CRLF after the delimiter.
            if cursor + 1 < body.count, body[cursor] == 0x0D, body[cursor + 1] == 0x0A { cursor += 2 }
            start = cursor
        }
        for part in parts {
            let partBytes = UnsafeRawBufferPointer(rebasing: body[part])
            guard let split = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: partBytes, from: 0) else { continue }
            let headerText = String(decoding: partBytes.prefix(split), as: UTF8.self)
            for line in headerText.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                let disposition = String(line)
                guard let name = Self.parameter("name", in: disposition), Self.parameter("filename", in: disposition) != nil else { continue }
                files[name] = (part.lowerBound + split + 4)..<part.upperBound
            }
        }
    }

    /// A `key=value` or `key="value"` parameter of a header value.
    private static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == key else { continue }
            var value = String(pair[1].trimmingSpaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// A delimiter counts at the start of the body or right after a CRLF, as in RFC 2046.
    private static func findDelimiter(_ delimiter: [UInt8], in body: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var cursor = start
        while let found = find(delimiter, in: body, from: cursor) {
            if found == 0 || (found >= 2 && body[found - 2] == 0x0D && body[found - 1] == 0x0A) { return found }
            cursor = found + 1
        }
        return nil
    }

    /// The first `needle` at or after `start`: `memchr` jumps to each candidate first byte, so
    /// a gigabyte of archive is scanned at memory speed.
    private static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else { return nil }
        let last = haystack.count - needle.count
        var index = start
        while index <= last {
            guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
            index = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + index, needle, needle.count) == 0 { return index }
            index += 1
        }
        return nil
    }
}
