import Testing

@testable import SelfDBSpec

@Suite("Name conversion")
struct NameConversionTests {
    @Test(
        "words split at separators and case humps",
        arguments: [
            ("created_at", ["created", "at"]),
            ("firstName", ["first", "Name"]),
            ("isActive", ["is", "Active"]),
            ("USER", ["USER"]),
            ("HTTPServer", ["HTTP", "Server"]),
            ("userID", ["user", "ID"]),
            ("2fa", ["2fa"]),
            ("version2Name", ["version2", "Name"]),
            ("a-b c", ["a", "b", "c"]),
            ("auth.users/list", ["auth", "users", "list"]),
            ("__private__", ["private"]),
            ("", []),
        ]
    )
    func words(_ name: String, _ expected: [String]) {
        #expect(NameConversion.words(name) == expected)
    }

    @Test(
        "lowerCamelCase",
        arguments: [
            ("created_at", "createdAt"),
            ("firstName", "firstName"),
            ("USER", "user"),
            ("HTTPServer", "httpServer"),
            ("2fa", "2fa"),
            ("a-b c", "aBC"),
            ("user_role", "userRole"),
            ("SortDirection", "sortDirection"),
            ("ADMIN_USER", "adminUser"),
            ("", ""),
        ]
    )
    func lowerCamelCase(_ name: String, _ expected: String) {
        #expect(NameConversion.lowerCamelCase(name) == expected)
    }

    @Test(
        "upperCamelCase",
        arguments: [
            ("created_at", "CreatedAt"),
            ("firstName", "FirstName"),
            ("USER", "User"),
            ("user_role", "UserRole"),
            ("selfdb", "Selfdb"),
            ("app-models", "AppModels"),
            ("2fa", "2fa"),
            ("a-b c", "ABC"),
        ]
    )
    func upperCamelCase(_ name: String, _ expected: String) {
        #expect(NameConversion.upperCamelCase(name) == expected)
    }

    @Test(
        "snakeCase",
        arguments: [
            ("createdAt", "created_at"),
            ("created_at", "created_at"),
            ("firstName", "first_name"),
            ("USER", "user"),
            ("HTTPServer", "http_server"),
            ("2fa", "2fa"),
            ("a-b c", "a_b_c"),
            ("TodoItem", "todo_item"),
        ]
    )
    func snakeCase(_ name: String, _ expected: String) {
        #expect(NameConversion.snakeCase(name) == expected)
    }

    @Test(
        "swiftIdentifier makes a valid identifier of any wire name",
        arguments: [
            ("created_at", "createdAt"),
            ("firstName", "firstName"),
            ("USER", "user"),
            ("HTTPServer", "httpServer"),
            ("2fa", "_2fa"),
            ("a-b c", "aBC"),
            ("100", "_100"),
            ("$ref", "ref"),
            ("", "_"),
            ("---", "_"),
            ("é-clair", "éClair"),
        ]
    )
    func swiftIdentifier(_ name: String, _ expected: String) {
        let identifier = NameConversion.swiftIdentifier(fromWireName: name)
        #expect(identifier == expected)
        #expect(SwiftNames.isIdentifierShape(identifier))
    }

    @Test("swiftIdentifier keeps keywords; escaping them is the emitter's job")
    func keywordsAreEscapedNotRenamed() {
        #expect(NameConversion.swiftIdentifier(fromWireName: "default") == "default")
        #expect(SwiftNames.escaped("default") == "`default`")
        #expect(SwiftNames.escaped("createdAt") == "createdAt")
        #expect(!SwiftNames.isValidIdentifier("default"))
        #expect(SwiftNames.isIdentifierShape("default"))
        #expect(!SwiftNames.isIdentifierShape("9Lives"))
        #expect(!SwiftNames.isIdentifierShape("sign-in"))
        #expect(SwiftNames.isValidIdentifier("_private2"))
    }
}

@Suite("Suggestions")
struct SuggestionTests {
    @Test("a transposition counts as one edit")
    func transposition() {
        #expect(Suggestion.editDistance("UserRoel", "UserRole") == 1)
        #expect(Suggestion.editDistance("ab", "ba") == 1)
        #expect(Suggestion.editDistance("gett", "get") == 1)
    }

    @Test("edit distance basics")
    func distance() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("abc", "") == 3)
        #expect(Suggestion.editDistance("same", "same") == 0)
        #expect(Suggestion.editDistance("txt", "text") == 1)
    }

    @Test("the closest candidate within the typo limit")
    func closest() {
        #expect(Suggestion.closest(to: "UserRoel", in: ["UserRead", "UserRole", "UserCreate"]) == "UserRole")
        #expect(Suggestion.closest(to: "modles", in: SpecLoader.topLevelKeys) == "models")
        #expect(Suggestion.closest(to: "txt", in: ColumnType.allCases.map(\.rawValue)) == "text")
        // Case-insensitive equality wins outright.
        #expect(Suggestion.closest(to: "primarykey", in: ["public", "primaryKey"]) == "primaryKey")
        // Too far to be a typo.
        #expect(Suggestion.closest(to: "Frobnicator", in: ["String", "Int", "UUID"]) == nil)
        #expect(Suggestion.closest(to: "ab", in: ["xy"]) == nil)
        #expect(Suggestion.closest(to: "anything", in: [String]()) == nil)
    }

    @Test("didYouMean formats the hint or nothing")
    func didYouMean() {
        #expect(Suggestion.didYouMean("UserRoel", in: ["UserRole"]) == "; did you mean 'UserRole'?")
        #expect(Suggestion.didYouMean("Frobnicator", in: ["UserRole"]) == "")
    }
}
