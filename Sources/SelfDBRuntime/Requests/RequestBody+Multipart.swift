import Foundation

extension RequestBody {
    /// Raw bytes sent as the one file part of a `multipart/form-data` body, the way an HTML
    /// form uploads a file (FastAPI's `UploadFile = File(...)` reads exactly this).
    ///
    /// The part's file name is the field name: servers that take a file this way read the
    /// bytes, not the name. The boundary holds a random UUID: it can occur in the bytes only by
    /// chance (about n·2⁻¹²² for n bytes).
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - field: the form field name; letters, digits, `_` and `-`.
    ///   - contentType: the part's content type.
    /// - Returns: a ``RequestBody/bytes(_:contentType:)`` body with the form's content type.
    public static func multipartFile(_ data: Data, field: String, contentType: String) -> RequestBody {
        let boundary = "selfdb-\(UUID().uuidString)"
        var body = Data()
        body.append(Data("--\(boundary)\r\n".utf8))
        body.append(Data("Content-Disposition: form-data; name=\"\(field)\"; filename=\"\(field)\"\r\n".utf8))
        body.append(Data("Content-Type: \(contentType)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return .bytes(body, contentType: "multipart/form-data; boundary=\(boundary)")
    }
}
