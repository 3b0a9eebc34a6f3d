/// Parses type expressions: `Name`, `T?`, `[T]`, `[String: T]`, nested, with free spacing.
enum TypeExpressionParser {
    /// A parse failure and the character offset it happened at.
    struct Failure: Error {
        var message: String
        var offset: Int
    }

    static func parse(_ text: String) throws(Failure) -> TypeReference {
        var parser = State(characters: Array(text))
        let type = try parser.parseType()
        parser.skipSpaces()
        if parser.index < parser.characters.count {
            var rest = String(parser.characters[parser.index...])
            while rest.last == " " { rest.removeLast() }
            throw Failure(message: "unexpected '\(rest)' after the type '\(type)'", offset: parser.index)
        }
        return type
    }

    private struct State {
        let characters: [Character]
        var index = 0

        mutating func skipSpaces() {
            while index < characters.count, characters[index] == " " { index += 1 }
        }

        mutating func parseType() throws(Failure) -> TypeReference {
            skipSpaces()
            guard index < characters.count else {
                throw Failure(message: "expected a type name", offset: index)
            }
            var type: TypeReference
            if characters[index] == "[" {
                index += 1
                skipSpaces()
                let firstStart = index
                let first = try parseType()
                skipSpaces()
                if index < characters.count, characters[index] == ":" {
                    guard first == .named("String") else {
                        throw Failure(message: "map keys must be String (JSON object keys are strings), not '\(first)'", offset: firstStart)
                    }
                    index += 1
                    let value = try parseType()
                    type = .map(value)
                } else {
                    type = .array(first)
                }
                skipSpaces()
                guard index < characters.count, characters[index] == "]" else {
                    // `type` is what was read so far, printed with its closing bracket.
                    throw Failure(message: "expected ']' to close '\(type.description.dropLast())'", offset: index)
                }
                index += 1
            } else {
                let start = index
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
                    index += 1
                }
                guard index > start else {
                    throw Failure(message: "expected a type name, found '\(characters[index])'", offset: index)
                }
                type = .named(String(characters[start..<index]))
            }
            skipSpaces()
            while index < characters.count, characters[index] == "?" {
                if type.isOptional {
                    throw Failure(message: "'\(type)?' is doubly optional; use one '?'", offset: index)
                }
                type = .optional(type)
                index += 1
                skipSpaces()
            }
            return type
        }
    }
}
