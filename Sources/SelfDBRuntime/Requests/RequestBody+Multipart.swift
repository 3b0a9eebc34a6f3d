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
        let form = MultipartFileForm(field: field, contentType: contentType)
        var body = form.head
        body.append(data)
        body.append(form.tail)
        return .bytes(body, contentType: form.contentType)
    }
}

/// The framing of a `multipart/form-data` body whose one part is a file: what goes before the
/// file's bytes and what goes after. Shared by the in-memory body and the one composed on disk
/// for a streamed upload, so that both send exactly the same bytes.
package struct MultipartFileForm: Sendable {
    /// The part boundary: a random UUID, which the file's bytes hold only by chance.
    package let boundary: String
    /// The form field name, also the part's file name.
    package let field: String
    /// The part's content type.
    package let partContentType: String

    package init(field: String, contentType: String, boundary: String = "selfdb-\(UUID().uuidString)") {
        self.boundary = boundary
        self.field = field
        self.partContentType = contentType
    }

    /// The body's `Content-Type`, naming the boundary.
    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The bytes before the file's.
    package var head: Data {
        Data(
            """
            --\(boundary)\r
            Content-Disposition: form-data; name="\(field)"; filename="\(field)"\r
            Content-Type: \(partContentType)\r
            \r

            """.utf8
        )
    }

    /// The bytes after the file's.
    package var tail: Data { Data("\r\n--\(boundary)--\r\n".utf8) }
}
