/// The names `form:` may give a multipart file part.
///
/// The name travels inside a quoted `Content-Disposition` parameter, so it is kept to
/// characters that need no quoting rules at all.
enum MultipartFieldName {
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
            }
    }
}
