import Foundation
import SelfDB

/// JSON text to `JSONValue` and back, for the rare edits of stored items (rebasing queued
/// mutations on what the server stored). Failures are nil: the text is then left as it was.
enum JSONObjectText {
    static func parse(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func render(_ value: JSONValue) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}
