import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `system.status` and `schema.*` through the generated client: the real server's shapes, and
/// its refusals (the schema is for admins only).
@Suite("system status and the database schema through the generated client")
struct SchemaClientTests {
    /// SelfDB v0.0.5's own tables, as its `/schema/tables` lists them.
    static let systemTables = [
        "buckets", "files", "function_executions", "function_logs", "functions", "refresh_tokens", "system_config", "tables", "users",
        "webhook_deliveries", "webhooks",
    ]

    @Test func statusWithTheAPIKeyAlone() async throws {
        try await ClientFixture.run { fixture in
            let before = try await fixture.client().system.status()
            #expect(before.version == "1.0.0")
            #expect(!before.initialized, "not until a first sign-in")
            _ = try await fixture.admin()
            #expect(try await fixture.client().system.status().initialized)
        }
    }

    @Test func adminsSeeEveryTableWithPostgresTypes() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let schema: TableSchema = [
                "id": ColumnSchema(type: "uuid", nullable: false), "title": ColumnSchema(type: "text", nullable: false),
                "code": ColumnSchema(type: "varchar"), "at": ColumnSchema(type: "timestamp"), "n": ColumnSchema(type: "integer", default: .integer(3)),
                "price": ColumnSchema(type: "decimal"), "ratio": ColumnSchema(type: "float"), "data": ColumnSchema(type: "jsonb"),
            ]
            _ = try await admin.tables.create(payload: TableCreate(name: "todo_items", tableSchema: schema))
            #expect(try await admin.schema.tables() == (Self.systemTables + ["todo_items"]).sorted())

            let view = try await admin.schema.visualization()
            #expect(view.nodes.map(\.id) == (Self.systemTables + ["todo_items"]).sorted())
            let todo = try #require(view.nodes.first { $0.id == "todo_items" })
            #expect(todo.label == "todo_items" && todo.primaryKeys.isEmpty)
            #expect(todo.columns.map(\.columnName) == ["at", "code", "data", "id", "n", "price", "ratio", "title"])
            let types = Dictionary(uniqueKeysWithValues: todo.columns.map { ($0.columnName, $0.dataType) })
            #expect(types["at"] == "timestamp with time zone" && types["code"] == "character varying" && types["price"] == "numeric")
            #expect(types["ratio"] == "double precision" && types["data"] == "jsonb" && types["id"] == "uuid")
            #expect(todo.columns.allSatisfy { $0.columnDefault == nil && !$0.isPrimaryKey }, "a table_schema default is stored, not applied")
            let users = try #require(view.nodes.first { $0.id == "users" })
            #expect(users.primaryKeys == ["id"])
            #expect(view.edges.contains { $0.source == "files" && $0.target == "buckets" && $0.sourceColumn == "bucket_id" })
        }
    }

    @Test func othersAreRefusedAsTheRealServerRefusesThem() async throws {
        try await ClientFixture.run { fixture in
            await expectError("401 without a user", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().schema.tables()
            }
            let (user, _) = try await fixture.newUser()
            await expectError(
                "403 for a user who is not an admin",
                { error in
                    if case .permissionDenied(let detail) = error { detail == "Admin access required for schema visualization" } else { false }
                }
            ) {
                _ = try await user.schema.visualization()
            }
            await expectError("403 for the table list too", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await user.schema.tables()
            }
        }
    }
}
