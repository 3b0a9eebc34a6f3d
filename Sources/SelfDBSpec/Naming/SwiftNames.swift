/// What Swift accepts as a name.
public enum SwiftNames {
    /// Keywords that cannot name a type, a function or a parameter without backticks.
    public static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "package", "consume", "borrowing", "consuming",
    ]

    /// Names a generated type may not take because they would shadow types the generated
    /// code itself uses.
    public static let reservedTypeNames: Set<String> = [
        "Type", "Protocol", "String", "Int", "Int64", "Double", "Bool", "Optional", "Array",
        "Dictionary", "Foundation", "Swift", "Date", "UUID", "URL", "Data", "Decoder", "Encoder",
        "CodingKey", "CodingKeys", "Codable", "Sendable", "Hashable", "Error",
        "JSONValue", "APIClient", "APIRequest", "QueryItem", "TableModel", "TableQuery", "SortOrder",
        "TableColumnDefinition", "TableModelColumn", "ColumnType", "Condition", "SelfDBError", "HTTPTransport",
        "WireKey",
    ]

    /// Standard library types a generated type may take the name of, but should rather not:
    /// the app module would then have to qualify Swift's own.
    public static let standardLibraryTypeNames: Set<String> = [
        "Task", "Result", "Never", "Character", "Range", "Set", "Sequence", "Collection",
        "Identifiable", "Equatable", "Comparable", "Actor", "Duration", "Clock", "Void",
    ]

    /// Whether `name` is a plain identifier (no backticks needed, not a keyword).
    public static func isValidIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierHead(first) else { return false }
        guard name.unicodeScalars.allSatisfy(isIdentifierCharacter) else { return false }
        return !keywords.contains(name)
    }

    /// Whether `name` is an identifier, keyword or not.
    public static func isIdentifierShape(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierHead(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierCharacter)
    }

    /// The name as it must be written in Swift source: keywords in backticks.
    public static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    static func isIdentifierHead(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierHead(scalar) || ("0"..."9").contains(scalar)
    }
}
