import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIClient {
    /// Sends `request` with the contents of `file` as its body, read from disk as it goes out
    /// (the transport's ``HTTPTransport/upload(_:fromFile:progress:)``: never the whole file in
    /// memory), and decodes the answer as `Response`: credentials, refreshes, retries (a request
    /// that may have reached the server is sent again only if it is idempotent), logging and
    /// errors as for every other call. Each attempt reads the file from its start.
    ///
    /// - Throws: ``SelfDBError/fileError(_:)`` when `file` does not exist or cannot be read,
    ///   before anything is sent; the client's usual errors otherwise.
    public func upload<Response: Decodable & Sendable>(
        _ request: APIRequest,
        fromFile file: URL,
        contentType: String = "application/octet-stream",
        progress: TransferProgressHandler? = nil,
        decoding _: Response.Type
    ) async throws -> Response {
        let data = try await upload(request, fromFile: file, contentType: contentType, progress: progress)
        return try decode(Response.self, from: data, answering: request)
    }

    /// Sends `request` with the contents of `file` as its body, as
    /// ``upload(_:fromFile:contentType:progress:decoding:)`` does, and returns the answer's raw
    /// body: for an endpoint that answers bytes, or nothing worth decoding.
    ///
    /// - Throws: ``SelfDBError/fileError(_:)`` when `file` does not exist or cannot be read,
    ///   before anything is sent; the client's usual errors otherwise.
    @discardableResult
    public func upload(
        _ request: APIRequest,
        fromFile file: URL,
        contentType: String = "application/octet-stream",
        progress: TransferProgressHandler? = nil
    ) async throws -> Data {
        try Self.checkReadable(file)
        var request = request
        request.body = .none
        request.headers["Content-Type"] = contentType
        let transport = self.transport
        return try await perform(request) { urlRequest in
            try await transport.upload(urlRequest, fromFile: file, progress: progress)
        }
    }

    /// Sends `request` with a `multipart/form-data` body whose one part, the form field
    /// `field`, holds the contents of `file` (what ``RequestBody/multipartFile(_:field:contentType:)``
    /// sends from memory), and decodes the answer as `Response`; as
    /// ``upload(_:fromFile:formField:contentType:progress:)`` sends it.
    ///
    /// - Throws: ``SelfDBError/fileError(_:)`` when `file` does not exist or cannot be read, or
    ///   the temporary folder cannot take the copy, before anything is sent; the client's usual
    ///   errors otherwise.
    public func upload<Response: Decodable & Sendable>(
        _ request: APIRequest,
        fromFile file: URL,
        formField field: String,
        contentType: String = "application/octet-stream",
        progress: TransferProgressHandler? = nil,
        decoding _: Response.Type
    ) async throws -> Response {
        let data = try await upload(request, fromFile: file, formField: field, contentType: contentType, progress: progress)
        return try decode(Response.self, from: data, answering: request)
    }

    /// Sends `request` with a `multipart/form-data` body whose one part, the form field
    /// `field`, holds the contents of `file`, and returns the answer's raw body.
    ///
    /// The form is first written whole to a file in the temporary folder (a streamed copy,
    /// 1 MiB at a time), which is then sent as ``upload(_:fromFile:contentType:progress:)``
    /// sends a file and removed afterwards, however the upload ends: memory stays flat, and the
    /// disk holds a second copy of the file while it is sent (URLSession streams a body from
    /// one file only). `progress` counts the form's bytes: the file's and about 200 of framing.
    ///
    /// - Throws: ``SelfDBError/fileError(_:)`` when `file` does not exist or cannot be read, or
    ///   the temporary folder cannot take the copy, before anything is sent; the client's usual
    ///   errors otherwise.
    @discardableResult
    public func upload(
        _ request: APIRequest,
        fromFile file: URL,
        formField field: String,
        contentType: String = "application/octet-stream",
        progress: TransferProgressHandler? = nil
    ) async throws -> Data {
        try Self.checkReadable(file)
        let form = MultipartFileForm(field: field, contentType: contentType)
        let composed: URL
        do {
            composed = try form.composeOnDisk(around: file)
        } catch let error as TransferFileError {
            throw SelfDBError.fileError(error.description)
        }
        defer { try? FileManager.default.removeItem(at: composed) }
        return try await upload(request, fromFile: composed, contentType: form.contentType, progress: progress)
    }

    /// Sends `request` and writes the answer's body to `destination` as it arrives (the
    /// transport's ``HTTPTransport/download(_:toFile:progress:)``: never the whole body in
    /// memory), with the client's credentials, refreshes, retries, logging and errors.
    ///
    /// The body goes to a temporary file beside `destination`, which replaces `destination`
    /// only once the whole body arrived (as many bytes as its `Content-Length` said): a
    /// download that fails, is cut short or is cancelled leaves `destination` as it was and no
    /// partial file behind.
    ///
    /// - Returns: the size of the file written.
    /// - Throws: ``SelfDBError/fileError(_:)`` when `destination`'s folder cannot be written or
    ///   the disk fills up; ``SelfDBError/invalidResponse(_:)`` when fewer or more bytes arrive
    ///   than the answer's `Content-Length` says; the client's usual errors otherwise.
    @discardableResult
    public func download(_ request: APIRequest, to destination: URL, progress: TransferProgressHandler? = nil) async throws -> Int64 {
        let partial = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).selfdb-\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw SelfDBError.fileError("\(destination.path): its folder does not exist or cannot be written")
        }
        defer { try? FileManager.default.removeItem(at: partial) }
        var request = request
        // The bytes as stored, so the file's size is the answer's Content-Length.
        request.headers["Accept-Encoding"] = "identity"
        let transport = self.transport
        let expected = Locked<Int64?>(nil)
        _ = try await perform(request) { urlRequest in
            let response = try await transport.download(urlRequest, toFile: partial, progress: progress)
            guard (200..<300).contains(response.statusCode) else {
                // An error's body is small: read it for the error's detail.
                return ((try? Data(contentsOf: partial)) ?? Data(), response)
            }
            expected.withLock { $0 = Self.contentLength(of: response) }
            return (Data(), response)
        }
        let size = try Self.size(of: partial)
        if let length = expected.current, length != size {
            throw SelfDBError.invalidResponse("\(request.method.rawValue) \(request.path): the answer said \(length) bytes and \(size) arrived")
        }
        guard rename(partial.path, destination.path) == 0 else {
            throw SelfDBError.fileError(TransferFileError(path: destination.path, errno: errno).description)
        }
        return size
    }

    private static func checkReadable(_ file: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw SelfDBError.fileError("\(file.path): no such file")
        }
        guard !isDirectory.boolValue else { throw SelfDBError.fileError("\(file.path): is a folder, not a file") }
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw SelfDBError.fileError("\(file.path): cannot be read")
        }
    }

    private static func size(of file: URL) throws -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw SelfDBError.fileError("\(file.path): \(error.localizedDescription)")
        }
    }

    /// The answer's `Content-Length`, unless its body was encoded (then the length is the
    /// encoded body's).
    private static func contentLength(of response: HTTPURLResponse) -> Int64? {
        guard response.value(forHTTPHeaderField: "Content-Encoding").map({ $0.lowercased() == "identity" }) ?? true else { return nil }
        return response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
