import Foundation

/// UUIDs travel as lowercase hyphenated text, as Python's `str(uuid)` prints them.
package enum UUIDText {
    /// The canonical lowercase form of `text`, or nil if it is not a UUID.
    package static func normalized(_ text: String) -> String? {
        UUID(uuidString: text).map { $0.uuidString.lowercased() }
    }

    /// Whether `text` is a UUID in the hyphenated 8-4-4-4-12 form, hex digits in either case.
    ///
    /// Stricter than Foundation's `UUID(uuidString:)` on Linux, which also takes a space or a
    /// hyphen inside a pair of hex digits (`E621-1F8-…`) and ignores whatever follows a NUL:
    /// PostgreSQL's uuid type refuses those. (PostgreSQL also reads braces and hyphen-less
    /// forms, which neither accepts.) And cheaper: a push checks every key and uuid column, and making a
    /// `UUID` there was a twentieth of applying a mutation.
    package static func isUUID(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): break
                default: return false
                }
            }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
    }

    /// A fresh random (v4) UUID.
    package static func random() -> String {
        UUID().uuidString.lowercased()
    }
}
