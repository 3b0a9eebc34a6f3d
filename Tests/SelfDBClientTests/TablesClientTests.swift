import Foundation
import SelfDB
import SelfDBRuntime
import Testing

@Suite("tables, columns and rows through the generated client")
struct TablesClientTests {
    static let schema: TableSchema = [
        "id": ColumnSchema(type: "uuid", nullable: false),
        "title": ColumnSchema(type: "text", nullable: false),
        "score": ColumnSchema(type: "integer"),
        "user_id": ColumnSchema(type: "uuid"),
    ]

    @Test func tableLifecycle() async throws {
        try await ClientFixture.run { fixture in
            let (owner, _) = try await fixture.newUser("owner")
            let (stranger, _) = try await fixture.newUser("stranger")
            let name = "items_\(UUID().uuidString.prefix(6).lowercased())"
            let table = try await owner.tables.create(payload: TableCreate(name: name, tableSchema: Self.schema, public: false, description: "test"))
            #expect(table.name == name)
            #expect(Set(table.tableSchema.keys) == ["id", "title", "score", "user_id"])
            let duplicate = try await owner.tables.create(payload: TableCreate(name: name, tableSchema: Self.schema))
            #expect(duplicate.id == table.id, "a duplicate create returns the existing table")
            #expect(try await owner.tables.get(table.id).description == "test")
            #expect(try await owner.tables.count(search: name) == 1)
            #expect(try await owner.tables.list(limit: 10, search: name, sortBy: .name, sortOrder: .asc).map(\.id) == [table.id])

            await expectError("401 for a private table read anonymously", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().tables.get(table.id)
            }
            await expectError("403 for someone else's table", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await stranger.tables.update(table.id, payload: TableUpdate(public: true))
            }
            let updated = try await owner.tables.update(table.id, payload: TableUpdate(public: true, realtimeEnabled: true))
            #expect(updated.public && updated.realtimeEnabled)
            #expect(try await fixture.client().tables.get(table.id).id == table.id, "public tables are readable anonymously")

            let added = try await owner.tables.columns.add(table.id, payload: ColumnDefinition(name: "note", type: "text"))
            #expect(added.status == "column_added")
            let renamed = try await owner.tables.columns.update(table.id, columnName: "note", payload: ColumnUpdate(newName: "memo"))
            #expect(renamed.status == "column_updated")
            #expect(try await owner.tables.get(table.id).tableSchema["memo"] != nil)
            let removed = try await owner.tables.columns.remove(table.id, columnName: "memo")
            #expect(removed.status == "column_deleted")
            await expectError("404 for an unknown column", { if case .notFound = $0 { true } else { false } }) {
                _ = try await owner.tables.columns.remove(table.id, columnName: "missing")
            }

            let deleted = try await owner.tables.delete(table.id)
            #expect(deleted.status == "table_deleted")
            await expectError("404 after deletion", { if case .notFound = $0 { true } else { false } }) {
                _ = try await owner.tables.get(table.id)
            }
        }
    }

    @Test func rowsPagingSearchSortAndOwnership() async throws {
        try await ClientFixture.run { fixture in
            let (owner, me) = try await fixture.newUser("rows")
            let (stranger, _) = try await fixture.newUser("other")
            let table = try await owner.tables.create(payload: TableCreate(name: "rows_\(UUID().uuidString.prefix(6).lowercased())", tableSchema: Self.schema, public: true))
            var ids: [String] = []
            for index in 1...5 {
                let inserted = try await owner.tables.data.insert(table.id, data: ["title": .string("row \(index)"), "score": .integer(Int64(index)), "user_id": .string(me.id.queryValue)])
                #expect(inserted.status == "row_inserted")
                ids.append(try #require(inserted.data["id"]?.stringValue))
            }
            let page = try await owner.tables.data.fetch(table.id, page: 2, pageSize: 2, sortBy: "score", sortOrder: .asc)
            #expect(page.total == 5)
            #expect(page.data.map { $0["score"]?.integerValue } == [3, 4])

            // The design note's fluent builder: immutable, refinable.
            let base = owner.tables.data.query(table.id).sort("score", .desc)
            #expect(try await base.page(1).pageSize(2).execute().data.map { $0["score"]?.integerValue } == [5, 4])
            #expect(try await base.search("row 3").execute().data.count == 1)

            await expectError("400 for a sort column that does not exist", { if case .badRequest = $0 { true } else { false } }) {
                _ = try await owner.tables.data.query(table.id).sort("nope").execute()
            }
            let before = fixture.requests("GET", pathPrefix: "/tables/\(table.id.queryValue)/data")
            for bad in [owner.tables.data.query(table.id).page(0), owner.tables.data.query(table.id).pageSize(1001), owner.tables.data.query(table.id).search(String(repeating: "x", count: 101))] {
                await expectError("invalidArgument before any request", { if case .invalidArgument = $0 { true } else { false } }) {
                    _ = try await bad.execute()
                }
            }
            #expect(fixture.requests("GET", pathPrefix: "/tables/\(table.id.queryValue)/data") == before)

            let updated = try await owner.tables.data.updateRow(table.id, rowId: ids[0], updates: ["title": "renamed"], idColumn: "id")
            #expect(updated.data["title"] == "renamed")
            await expectError("404 for someone else's row", { if case .notFound = $0 { true } else { false } }) {
                _ = try await stranger.tables.data.updateRow(table.id, rowId: ids[1], updates: ["title": "mine"])
            }
            let deleted = try await owner.tables.data.deleteRow(table.id, rowId: ids[1])
            #expect(deleted.status == "row_deleted")

            let noOwner = try await owner.tables.create(
                payload: TableCreate(name: "plain_\(UUID().uuidString.prefix(6).lowercased())", tableSchema: ["id": ColumnSchema(type: "uuid"), "title": ColumnSchema(type: "text")], public: true)
            )
            let row = try await owner.tables.data.insert(noOwner.id, data: ["title": "x"])
            await expectError("400 for a table without user_id", { if case .badRequest = $0 { true } else { false } }) {
                _ = try await owner.tables.data.deleteRow(noOwner.id, rowId: try #require(row.data["id"]?.stringValue))
            }
        }
    }

    @Test func typedRowsFromATableModel() async throws {
        try await ClientFixture.run { fixture in
            let (selfdb, me) = try await fixture.newUser("typed")
            let table = try await selfdb.tables.create(from: Memo.self)
            #expect(table.realtimeEnabled, "realtime follows the table model")
            #expect(table.tableSchema["pinned"]?.default == .bool(false))
            for (index, title) in ["alpha", "beta", "gamma"].enumerated() {
                try await selfdb.tables.data.insert(Memo(id: UUID(), title: title, rank: index, userId: me.id))
            }
            let rows = try await selfdb.tables.data.query(Memo.self).sort(.rank, .desc).execute()
            #expect(rows.map(\.title) == ["gamma", "beta", "alpha"])
            let page = try await selfdb.tables.data.query(Memo.self).sort(.rank, .asc).page(2).pageSize(2).executePage()
            #expect(page.rows.map(\.title) == ["gamma"])
            #expect(!page.hasNext)

            var first = try #require(rows.last)
            first.pinned = true
            #expect(try await selfdb.tables.data.update(first).pinned == true)
            try await selfdb.tables.data.delete(first)
            #expect(try await selfdb.tables.data.query(Memo.self).executePage().total == 2)
        }
    }

    @Test func aRowThatDoesNotFitTheModelIsATypedError() async throws {
        try await ClientFixture.run { fixture in
            let (selfdb, _) = try await fixture.newUser("misfit")
            // A `memos` table whose rank is text: its rows do not decode as `Memo`.
            let schema: TableSchema = ["id": ColumnSchema(type: "uuid", nullable: false), "title": ColumnSchema(type: "text", nullable: false), "rank": ColumnSchema(type: "text")]
            let table = try await selfdb.tables.create(payload: TableCreate(name: Memo.tableName, tableSchema: schema))
            try await selfdb.tables.data.insert(table.id, data: ["id": .string(UUID().uuidString), "title": .string("misfit"), "rank": .string("high")])
            await expectError(
                "a row of the wrong shape",
                {
                    if case .invalidResponse(let text) = $0 { text.contains("Memo") && text.contains("rank") } else { false }
                }
            ) {
                _ = try await selfdb.tables.data.query(Memo.self).execute()
            }
        }
    }
}
