/// `"/users/\(path: userId)"`: generated code interpolates path parameters through these, so
/// every value is percent-encoded and a `/` inside a value can never change the route.
extension String.StringInterpolation {
    /// One path segment: everything outside RFC 3986's unreserved set is percent-encoded.
    public mutating func appendInterpolation(path value: some QueryValueConvertible) {
        appendLiteral(PathEncoding.encodeSegment(value.queryValue))
    }

    /// The rest of a path (`{path...}`): each `/`-separated part is encoded, `/` kept.
    /// A leading `/` is dropped: the template already supplies one.
    public mutating func appendInterpolation(pathRest value: some QueryValueConvertible) {
        var text = value.queryValue
        while text.hasPrefix("/") { text.removeFirst() }
        appendLiteral(text.split(separator: "/", omittingEmptySubsequences: false).map { PathEncoding.encodeSegment(String($0)) }.joined(separator: "/"))
    }
}

/// Percent-encoding for URL paths and queries.
public enum PathEncoding {
    /// Encodes all but `A–Z a–z 0–9 - . _ ~`.
    public static func encodeSegment(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }
}
