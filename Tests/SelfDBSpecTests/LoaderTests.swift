import Foundation
import Testing

@testable import SelfDBSpec

/// Paths of the specs the repository ships, found from this file.
enum RepositoryFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SelfDBSpecTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let selfdbSpec = root.appendingPathComponent("Spec/selfdb.yaml")
    static let appModelsSpec = root.appendingPathComponent("Tests/GeneratedCodeTests/app-models.yaml")

    static func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }
}

// MARK: - YAML reader

@Suite("YAML reader")
struct YAMLReaderTests {
    private func entries(_ node: SpecNode?) throws -> [SpecNode.Entry] {
        guard case .mapping(let mapping) = try #require(node) else {
            Issue.record("expected a mapping, found \(String(describing: node))")
            return []
        }
        return mapping.entries
    }

    private func scalar(_ node: SpecNode) throws -> SpecNode.Scalar {
        guard case .scalar(let scalar) = node else {
            Issue.record("expected a scalar, found \(node.kindDescription)")
            throw CancellationError()
        }
        return scalar
    }

    @Test("keys and values carry their line and column")
    func locations() throws {
        let text = """
            spec: 1
            models:
              User:
                fields:
                  id: UUID
                  name: { type: String }
            """
        let result = YAMLReader.read(text, file: "f.yaml")
        #expect(result.diagnostics.isEmpty)
        let top = try entries(result.root)
        #expect(top.map(\.key.text) == ["spec", "models"])
        #expect(top[0].key.location == SourceLocation(file: "f.yaml", line: 1, column: 1))
        #expect(try scalar(top[0].value).location == SourceLocation(file: "f.yaml", line: 1, column: 7))
        #expect(top[1].key.location.line == 2)

        let user = try #require(try entries(top[1].value).first)
        #expect(user.key.text == "User")
        #expect(user.key.location == SourceLocation(file: "f.yaml", line: 3, column: 3))
        let fields = try #require(try entries(user.value).first)
        let fieldEntries = try entries(fields.value)
        #expect(fieldEntries[0].key.location == SourceLocation(file: "f.yaml", line: 5, column: 7))
        #expect(try scalar(fieldEntries[0].value).location == SourceLocation(file: "f.yaml", line: 5, column: 11))
        // A flow mapping starts at its '{'; its keys have their own columns.
        #expect(fieldEntries[1].value.location == SourceLocation(file: "f.yaml", line: 6, column: 13))
        let flow = try entries(fieldEntries[1].value)
        #expect(flow[0].key.location == SourceLocation(file: "f.yaml", line: 6, column: 15))
        #expect(try scalar(flow[0].value).location == SourceLocation(file: "f.yaml", line: 6, column: 21))
    }

    @Test("quoted scalars are text; plain ones are kept verbatim for the loader to interpret")
    func quotedAndPlain() throws {
        let text = """
            a: null
            b: "null"
            c: 'yes'
            d: no
            e: |
              block
            f:
            g: ""
            """
        let result = YAMLReader.read(text, file: "f.yaml")
        #expect(result.diagnostics.isEmpty)
        let values = try entries(result.root).map { try scalar($0.value) }
        #expect(values.map(\.text) == ["null", "null", "yes", "no", "block\n", "", ""])
        #expect(values.map(\.isQuoted) == [false, true, true, false, true, false, true])
        #expect(SpecNode.scalar(values[5]).kindDescription == "an empty value")
        #expect(SpecNode.scalar(values[6]).kindDescription == "a scalar")
    }

    @Test("a scalar knows where its text starts when it stands verbatim in the line")
    func textColumns() throws {
        let text = #"""
            plain: Int??
            double: "[String"
            single: '[Int: String]'
            escaped: "a\tb"
            doubled: 'it''s'
            block: |
              text
            """#
        let result = YAMLReader.read(text, file: "f.yaml")
        let values = try entries(result.root).map { try scalar($0.value) }
        #expect(values.map(\.textColumn) == [8, 10, 10, nil, nil, nil])
        #expect(values[1].location(ofCharacterOffset: 7).column == 17)
        // Without a verbatim text, positions fall back to the scalar's start.
        #expect(values[3].location(ofCharacterOffset: 2) == values[3].location)
    }

    @Test("a duplicate key is reported at its second occurrence")
    func duplicateKeys() {
        let text = """
            models:
              User:
                alias: String
              Team:
                alias: String
              User:
                alias: Int
            """
        let result = YAMLReader.read(text, file: "f.yaml")
        #expect(result.root == nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "f.yaml:6:3: error: duplicate key 'User' (first defined at line 2); each key may appear once in a mapping"
            ]
        )
    }

    @Test("syntax errors, empty text and forbidden characters become located diagnostics")
    func unreadable() {
        let cases: [(String, String)] = [
            ("", "f.yaml:1:1: error: the spec is empty; expected a mapping with 'models', 'endpoints' or 'tables'"),
            ("# only a comment\n", "f.yaml:1:1: error: the spec is empty; expected a mapping with 'models', 'endpoints' or 'tables'"),
            ("a: 1\nb: \u{0}\n", "f.yaml:2:4: error: the file contains a control character (U+0000) that YAML does not allow"),
            ("a: [1, 2\n", "f.yaml:2:1: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)"),
            ("a: *missing\n", "f.yaml:1:4: error: invalid YAML: found undefined alias"),
        ]
        for (text, expected) in cases {
            let result = YAMLReader.read(text, file: "f.yaml")
            #expect(result.root == nil, "\(text.debugDescription)")
            #expect(result.diagnostics.map(\.description) == [expected], "\(text.debugDescription)")
        }
    }

    @Test("aliases are resolved into copies of their anchor")
    func aliases() throws {
        let result = YAMLReader.read("a: &x [1, 2]\nb: *x\n", file: "f.yaml")
        #expect(result.diagnostics.isEmpty)
        let top = try entries(result.root)
        guard case .sequence(let first) = top[0].value, case .sequence(let second) = top[1].value else {
            Issue.record("expected two sequences")
            return
        }
        #expect(first.items.count == 2)
        #expect(second.items.count == 2)
    }
}

// MARK: - Path templates

@Suite("Path templates")
struct PathTemplateTests {
    @Test("literals and parameters in order")
    func segments() {
        let template = PathTemplate.parse("/tables/{table_id}/data/{row_id}")
        #expect(
            template.segments == [
                .literal("/tables/"), .parameter(name: "table_id", rest: false),
                .literal("/data/"), .parameter(name: "row_id", rest: false),
            ]
        )
        #expect(template.parameterNames == ["table_id", "row_id"])
        #expect(template.problems.isEmpty)
    }

    @Test("a rest parameter")
    func rest() {
        let template = PathTemplate.parse("/storage/files/download/{bucket_name}/{path...}")
        #expect(template.segments.last == .parameter(name: "path", rest: true))
        #expect(template.parameterNames == ["bucket_name", "path"])
    }

    @Test("a path without parameters is one literal")
    func literalOnly() {
        #expect(PathTemplate.parse("/users/me").segments == [.literal("/users/me")])
        #expect(PathTemplate.parse("").segments.isEmpty)
    }

    @Test("problems carry the character offset they start at")
    func problems() {
        let unclosed = PathTemplate.parse("/users/{user_id")
        #expect(unclosed.problems.map(\.offset) == [7])
        #expect(unclosed.problems.map(\.message) == ["'{' is never closed"])

        let stray = PathTemplate.parse("/users/}")
        #expect(stray.problems.map(\.offset) == [7])
        #expect(stray.problems.map(\.message) == ["'}' without a matching '{'"])

        let empty = PathTemplate.parse("/a/{}/b/{...}")
        #expect(empty.problems.map(\.offset) == [3, 8])
        #expect(empty.problems.map(\.message) == ["'{}' is not a parameter name", "'{}' is not a parameter name"])
        #expect(empty.parameterNames.isEmpty)
    }
}

// MARK: - Loader

@Suite("Loader")
struct LoaderTests {
    private func fieldTypes(_ spec: Spec?, model: String) -> [String: TypeReference] {
        guard let declaration = spec?.models.first(where: { $0.name.value == model }),
            case .structure(let structure) = declaration.kind
        else { return [:] }
        return Dictionary(uniqueKeysWithValues: structure.fields.map { ($0.key.value, $0.type.value) })
    }

    @Test("type expressions parse into nested references")
    func typeExpressions() throws {
        let text = """
            models:
              Thing:
                fields:
                  a: "[String: [Int]]?"
                  b: "[ String : Int ]"
                  c: "[[Thing]]"
                  d: Int?
                  e: " [Bool] "
                  f: "[String: [String: JSON?]]"
            """
        let output = SpecCompiler.compile(text, file: "t.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let types = fieldTypes(output.spec, model: "Thing")
        #expect(types["a"] == .optional(.map(.array(.named("Int")))))
        #expect(types["b"] == .map(.named("Int")))
        #expect(types["c"] == .array(.array(.named("Thing"))))
        #expect(types["d"] == .optional(.named("Int")))
        #expect(types["e"] == .array(.named("Bool")))
        #expect(types["f"] == .map(.map(.optional(.named("JSON")))))
        #expect(types["a"]?.description == "[String: [Int]]?")
        #expect(types["a"]?.innermostName == "Int")
    }

    @Test(
        "malformed type expressions point inside the scalar",
        arguments: [
            ("Int??", "t.yaml:4:14: error: invalid type 'Int??': 'Int??' is doubly optional; use one '?'"),
            ("\"[String\"", "t.yaml:4:18: error: invalid type '[String': expected ']' to close '[String'"),
            ("\"[Int: String]\"", "t.yaml:4:12: error: invalid type '[Int: String]': map keys must be String (JSON object keys are strings), not 'Int'"),
            ("Foo Bar", "t.yaml:4:14: error: invalid type 'Foo Bar': unexpected 'Bar' after the type 'Foo'"),
            ("\"[]\"", "t.yaml:4:12: error: invalid type '[]': expected a type name, found ']'"),
            ("\"[String: ]\"", "t.yaml:4:20: error: invalid type '[String: ]': expected a type name, found ']'"),
            ("'?'", "t.yaml:4:11: error: invalid type '?': expected a type name, found '?'"),
        ]
    )
    func badTypeExpressions(_ written: String, _ expected: String) {
        let text = """
            models:
              Thing:
                fields:
                  a: \(written)
            """
        let output = SpecCompiler.compile(text, file: "t.yaml")
        #expect(output.diagnostics.map(\.description) == [expected])
    }

    @Test("Spec/selfdb.yaml compiles without a single diagnostic")
    func selfdbSpec() throws {
        let text = try RepositoryFiles.text(RepositoryFiles.selfdbSpec)
        let output = SpecCompiler.compile(text, file: "selfdb.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics.map(\.description).joined(separator: "\n"))")
        #expect(output.isValid)
        let spec = try #require(output.spec)
        #expect(spec.file == "selfdb.yaml")
        #expect(spec.access == .public)
        #expect(spec.client?.name.value == "SelfDB")
        #expect(spec.client?.extendsExistingType == true)
        #expect(spec.models.count == 68)
        #expect(spec.endpoints.count == 73)
        #expect(spec.elsewhere.map { "\($0.method) \($0.path)" } == ["GET /realtime/socket"])
        #expect(spec.tables.isEmpty)
        #expect(spec.errors.count == 11)
        #expect(spec.errors.first { $0.status.value == 404 }?.kind.value == .notFound)

        let create = try #require(spec.endpoints.first { $0.name.value == "auth.users.create" })
        #expect(create.segments == ["auth", "users", "create"])
        #expect(create.method.value == .post)
        #expect(create.path.value == "/users/")
        #expect(create.auth == .apiKey)
        #expect(create.isIdempotent == false)
        #expect(create.returns?.value == .named("UserRead"))
        #expect(create.parameters.count == 1)
        let payload = try #require(create.parameters.first)
        #expect(payload.key.value == "payload")
        #expect(payload.location == .body)
        #expect(payload.type.value == .named("UserCreate"))
        #expect(payload.flatten == false)

        // `defaults: auth: bearer` applies where an endpoint says nothing.
        let me = try #require(spec.endpoints.first { $0.name.value == "auth.me" })
        #expect(me.auth == .bearer)
        #expect(me.method.value == .get)
        #expect(me.isIdempotent)

        let login = try #require(spec.endpoints.first { $0.name.value == "auth.login" })
        #expect(login.session == .signIn)
        #expect(login.parameters.first?.flatten == true)

        let download = try #require(spec.endpoints.first { $0.name.value == "storage.files.download" })
        #expect(download.path.value == "/storage/files/download/{bucket_name}/{path...}")
        let template = PathTemplate.parse(download.path.value)
        #expect(template.segments.last == .parameter(name: "path", rest: true))
        #expect(download.parameters.map(\.location) == [.path, .path])
        #expect(download.returns?.value == .named("Bytes"))

        let list = try #require(spec.endpoints.first { $0.name.value == "auth.users.list" })
        #expect(list.parameters.allSatisfy { $0.location == .query })
        #expect(list.parameters.first { $0.key.value == "sort_by" }?.swiftName.value == "sortBy")

        let get = try #require(spec.endpoints.first { $0.name.value == "auth.users.get" })
        #expect(get.parameters.first?.label?.value == "_")
        #expect(get.parameters.first?.location == .path)

        let userRead = try #require(spec.models.first { $0.name.value == "UserRead" })
        guard case .structure(let structure) = userRead.kind else {
            Issue.record("UserRead is not a struct")
            return
        }
        #expect(structure.wire == .camelCase)
        let createdAt = try #require(structure.fields.first { $0.key.value == "created_at" })
        #expect(createdAt.swiftName.value == "createdAt")
        #expect(createdAt.wireName == "created_at")
        let firstName = try #require(structure.fields.first { $0.key.value == "firstName" })
        #expect(firstName.swiftName.value == "firstName")
        #expect(firstName.wireName == "firstName")
        let isActive = try #require(structure.fields.first { $0.key.value == "isActive" })
        #expect(isActive.defaultValue?.value == .bool(true))

        let role = try #require(spec.models.first { $0.name.value == "UserRole" })
        guard case .enumeration(let enumeration) = role.kind else {
            Issue.record("UserRole is not an enum")
            return
        }
        #expect(enumeration.cases.map(\.value.value) == ["USER", "ADMIN"])
        #expect(enumeration.cases.map(\.swiftName.value) == ["user", "admin"])

        let tableSchema = try #require(spec.models.first { $0.name.value == "TableSchema" })
        let aliasLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(#"alias: "[String: ColumnSchema]""#) }) + 1
        // The location of a quoted scalar is its opening quote.
        #expect(tableSchema.kind == .alias(Located(.map(.named("ColumnSchema")), at: SourceLocation(file: "selfdb.yaml", line: aliasLine, column: 12))))
    }

    @Test("snake_case models send camelCase keys as snake_case")
    func wireNaming() throws {
        let text = """
            models:
              Row:
                fields:
                  createdAt: Date
                  owner_id: UUID
                  raw: { type: String, wire: RAW, swift: rawValue }
              Camel:
                wire: camelCase
                fields:
                  owner_id: UUID
              Verbatim:
                wire: verbatim
                fields:
                  Owner-ID: UUID
            """
        let output = SpecCompiler.compile(text, file: "w.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        func fields(_ name: String) -> [FieldDeclaration] {
            guard case .structure(let structure) = output.spec?.models.first(where: { $0.name.value == name })?.kind else { return [] }
            return structure.fields
        }
        #expect(fields("Row").map(\.wireName) == ["created_at", "owner_id", "RAW"])
        #expect(fields("Row").map(\.swiftName.value) == ["createdAt", "ownerId", "rawValue"])
        #expect(fields("Camel").map(\.wireName) == ["ownerId"])
        #expect(fields("Verbatim").map(\.wireName) == ["Owner-ID"])
        #expect(fields("Verbatim").map(\.swiftName.value) == ["ownerId"])
    }

    @Test("the app-models table spec compiles cleanly")
    func appModels() throws {
        let output = SpecCompiler.compile(try RepositoryFiles.text(RepositoryFiles.appModelsSpec), file: "app-models.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics.map(\.description).joined(separator: "\n"))")
        let spec = try #require(output.spec)
        #expect(spec.client == nil)
        #expect(spec.endpoints.isEmpty)
        let table = try #require(spec.tables.first)
        #expect(spec.tables.count == 1)
        #expect(table.name.value == "TodoItem")
        #expect(table.tableName.value == "todo_items")
        #expect(table.primaryKey?.value == "id")
        #expect(table.realtime)
        #expect(!table.isPublic)
        #expect(table.columns.map(\.name.value) == ["id", "title", "done", "priority", "due_at", "notes", "user_id"])
        #expect(table.columns.map { $0.type?.value } == [.uuid, .text, .boolean, .integer, .timestamp, .jsonb, .uuid])
        #expect(table.columns.map(\.swiftName.value) == ["id", "title", "done", "priority", "dueAt", "notes", "userId"])
        #expect(table.columns.first { $0.name.value == "title" }?.nullable == false)
        #expect(table.columns.first { $0.name.value == "done" }?.defaultValue?.value == .bool(false))
    }

    @Test("a small endpoint spec gets a client named after its file")
    func defaultClientName() throws {
        let text = """
            endpoints:
              ping:
                get: /ping
            """
        let output = SpecCompiler.compile(text, file: "Specs/billing.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        #expect(output.spec?.client?.name.value == "BillingAPI")
        #expect(output.spec?.endpoints.first?.method.value == .get)
        #expect(output.spec?.endpoints.first?.isIdempotent == true)
    }

    @Test("the loader keeps going after an error, so one pass reports every problem")
    func reportsEveryProblem() {
        let text = """
            models:
              A:
                fields:
                  x: Nope
              B:
                fields:
                  y: Nada
            """
        let output = SpecCompiler.compile(text, file: "m.yaml")
        #expect(output.spec != nil)
        #expect(!output.isValid)
        #expect(
            output.diagnostics.map(\.description) == [
                "m.yaml:4:10: error: unknown type 'Nope'",
                "m.yaml:7:10: error: unknown type 'Nada'",
            ]
        )
    }
}
