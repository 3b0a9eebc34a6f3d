/// Conversions between the naming conventions that meet in a spec: wire names such as
/// `created_at`, `firstName` or `USER`, and Swift names such as `createdAt` and `user`.
public enum NameConversion {
    /// Splits a name into words at `_`, `-`, spaces, dots and case humps:
    /// `created_at` → created, at; `isActive` → is, Active; `HTTPServer` → HTTP, Server.
    public static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if character == "_" || character == "-" || character == " " || character == "." || character == "/" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if !current.isEmpty, character.isUppercase {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                // A hump starts at lower→Upper, and at the last capital of an acronym
                // followed by a lowercase letter (HTTPServer → HTTP + Server).
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && (next?.isLowercase ?? false)) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `created_at` → `createdAt`, `USER` → `user`, `firstName` → `firstName`.
    public static func lowerCamelCase(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "" }
        let head = isAllUppercase(first) ? first.lowercased() : lowercaseFirst(first)
        return head + parts.dropFirst().map(capitalizedWord).joined()
    }

    /// `user_role` → `UserRole`.
    public static func upperCamelCase(_ name: String) -> String {
        words(name).map(capitalizedWord).joined()
    }

    /// `createdAt` → `created_at`.
    public static func snakeCase(_ name: String) -> String {
        words(name).map { $0.lowercased() }.joined(separator: "_")
    }

    /// A valid Swift identifier for an arbitrary wire name: characters that cannot appear
    /// are dropped and a leading digit gets an underscore.
    public static func swiftIdentifier(fromWireName name: String) -> String {
        let camel = lowerCamelCase(name)
        var result = String(camel.unicodeScalars.filter { SwiftNames.isIdentifierCharacter($0) })
        if result.isEmpty { result = "_" }
        if let first = result.unicodeScalars.first, !SwiftNames.isIdentifierHead(first) {
            result = "_" + result
        }
        return result
    }

    private static func capitalizedWord(_ word: String) -> String {
        guard let first = word.first else { return word }
        let rest = word.dropFirst()
        let tail = isAllUppercase(word) ? rest.lowercased() : String(rest)
        return first.uppercased() + tail
    }

    private static func lowercaseFirst(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.lowercased() + word.dropFirst()
    }

    private static func isAllUppercase(_ word: String) -> Bool {
        word.contains { $0.isLetter } && !word.contains { $0.isLowercase }
    }
}
