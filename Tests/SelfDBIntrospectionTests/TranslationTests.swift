import SelfDBSpec
import Testing

@testable import SelfDBIntrospection

/// Server tables in the spec language: names, types, defaults, keys.
@Suite("Introspection: server tables in the spec language")
struct TranslationTests {
    @Test("model names: singular, upper camel case; Swift's and the spec's own type names and names taken get Row, then a number")
    func modelNames() {
        #expect(TableSpecTranslator.modelName(for: "todo_items", avoiding: []) == "TodoItem")
        #expect(TableSpecTranslator.modelName(for: "categories", avoiding: []) == "Category")
        #expect(TableSpecTranslator.modelName(for: "boxes", avoiding: []) == "Box")
        #expect(TableSpecTranslator.modelName(for: "status", avoiding: []) == "Status")
        #expect(TableSpecTranslator.modelName(for: "news", avoiding: []) == "News")
        #expect(TableSpecTranslator.modelName(for: "data", avoiding: []) == "DataRow")
        #expect(TableSpecTranslator.modelName(for: "dates", avoiding: []) == "DateRow")
        #expect(TableSpecTranslator.modelName(for: "strings", avoiding: []) == "StringRow")
        #expect(TableSpecTranslator.modelName(for: "todo_items", avoiding: ["TodoItem"]) == "TodoItem2")
        #expect(TableSpecTranslator.modelName(for: "_2fa", avoiding: []).first?.isLetter == true)
    }

    @Test("SelfDB's types as they are; raw SQL types as the nearest, with a note; nothing dropped")
    func types() {
        for type in ColumnType.allCases {
            let (mapped, note) = ColumnTypeMapping.columnType(for: type.rawValue)
            #expect(mapped == type)
            #expect(note == nil)
        }
        let raw: [(String, ColumnType)] = [
            ("TIMESTAMPTZ", .timestamp), ("VARCHAR(80)", .varchar), ("numeric(10,2)", .decimal), ("double precision", .float),
            ("smallint", .integer), ("bigserial", .bigint), ("text[]", .jsonb), ("bytea", .text), ("time", .text), ("INTEGER", .integer),
        ]
        for (sql, expected) in raw {
            let (mapped, note) = ColumnTypeMapping.columnType(for: sql)
            #expect(mapped == expected, "\(sql)")
            if sql != "INTEGER" { #expect(note?.contains(sql) == true, "\(sql)") }
        }
    }

    @Test("id is the key; without one a column is chosen and said; clashing Swift names get swift:; defaults only when they fit")
    func columns() {
        let table = ServerTable(
            name: "events",
            schema: [
                "event_id": ServerColumn(type: "uuid", nullable: false),
                "user_id": ServerColumn(type: "uuid"),
                "userId": ServerColumn(type: "text"),
                "at": ServerColumn(type: "timestamp", defaultValue: .string("now()")),
                "count": ServerColumn(type: "integer", defaultValue: .int(3)),
                "ratio": ServerColumn(type: "float", defaultValue: .int(1)),
                "flags": ServerColumn(type: "jsonb", defaultValue: .structured),
                "label": ServerColumn(type: "text", defaultValue: .string("new")),
            ]
        )
        let translated = TableSpecTranslator.translate([table])[0]
        #expect(translated.modelName == "Event")
        #expect(translated.primaryKey == "event_id")
        #expect(translated.notes.count == 1)
        let byName = Dictionary(uniqueKeysWithValues: translated.columns.map { ($0.name, $0) })
        #expect(byName["userId"]?.swiftName == nil)
        #expect(byName["user_id"]?.swiftName == "userId2")
        #expect(byName["at"]?.defaultValue == nil)
        #expect(byName["at"]?.note?.contains("now()") == true)
        #expect(byName["count"]?.defaultValue == .int(3))
        #expect(byName["ratio"]?.defaultValue == .int(1))
        #expect(byName["flags"]?.defaultValue == nil)
        #expect(byName["label"]?.defaultValue == .string("new"))
    }

    @Test("what is rendered reads back as the same values: quoting, escapes, keys")
    func renderedSpecReadsBack() throws {
        let table = ServerTable(
            name: "todo_items",
            schema: [
                "id": ServerColumn(type: "uuid", nullable: false),
                "title": ServerColumn(type: "text", nullable: false, defaultValue: .string("say \"hi\": now\n\tno")),
                "done": ServerColumn(type: "boolean", defaultValue: .bool(false)),
                "yes": ServerColumn(type: "text", defaultValue: .string("true")),
            ],
            isPublic: true,
            realtimeEnabled: true,
            description: "Things: \"to do\" # not a comment"
        )
        let text = TableSpecRenderer.file(TableSpecTranslator.translate([table]), source: "http://x:1")
        let output = SpecCompiler.compile(text, file: "s.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let declared = try #require(output.spec?.tables.first)
        #expect(declared.name.value == "TodoItem")
        #expect(declared.description == table.description)
        #expect(declared.isPublic && declared.realtime)
        #expect(declared.primaryKey?.value == "id")
        let title = try #require(declared.columns.first { $0.name.value == "title" })
        #expect(title.defaultValue?.value == .string("say \"hi\": now\n\tno"))
        #expect(!title.nullable)
        #expect(declared.columns.first { $0.name.value == "yes" }?.defaultValue?.value == .string("true"))
    }
}
