import Crypto
import EmulatorSupport

/// The schema hash: SHA-256 (lower-case hex) of `{"tables":[...]}` written canonically,
/// i.e. object keys sorted by their UTF-8 bytes at every level, no whitespace, array
/// order kept, absent optionals left out (never `null`), strings escaped as
/// ``JSONWriter`` escapes them and integers in plain decimal.
enum CanonicalJSON {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        JSONWriter.bytes(sorted(value))
    }

    static func sha256Hex(_ value: JSONValue) -> String {
        hex(SHA256.hash(data: bytes(value)))
    }

    /// Lower-case hex of a digest.
    static func hex<Digest: Sequence>(_ digest: Digest) -> String where Digest.Element == UInt8 {
        let digits = Array("0123456789abcdef")
        return digest.map { byte in String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]) }.joined()
    }

    private static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(sorted))
        case .object(let object):
            let members = object.members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            return .object(JSONObject(members.map { ($0.key, sorted($0.value)) }))
        default:
            return value
        }
    }
}
