import Foundation

/// UUIDs travel as lowercase hyphenated text, as Python's `str(uuid)` prints them.
package enum UUIDText {
    /// The canonical lowercase form of `text`, or nil if it is not a UUID.
    package static func normalized(_ text: String) -> String? {
        UUID(uuidString: text).map { $0.uuidString.lowercased() }
    }

    /// A fresh random (v4) UUID.
    package static func random() -> String {
        UUID().uuidString.lowercased()
    }
}
