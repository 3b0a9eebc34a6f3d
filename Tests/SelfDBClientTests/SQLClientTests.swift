import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `sql.*` through the generated client: queries on the app's tables (SQLite's dialect on the
/// emulator), SelfDB's own refusals, the emulator's documented limits, history and snippets.
@Suite("the SQL console through the generated client")
struct SQLClientTests {
    @Test func readsAndWritesTheAppsTables() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let schema: TableSchema = ["title": ColumnSchema(type: "text", nullable: false), "n": ColumnSchema(type: "integer")]
            let table = try await admin.tables.create(payload: TableCreate(name: "notes", tableSchema: schema))

            let inserted = try await admin.sql.query(query: "  INSERT INTO notes (title, n) VALUES ('a', 1), ('b', 2)  ")
            #expect(!inserted.isReadOnly && inserted.rowCount == 2 && inserted.data == nil)
            #expect(inserted.message == "Query executed successfully. 2 row(s) affected.")
            let read = try await admin.sql.query(query: "SELECT title, n FROM notes ORDER BY n")
            #expect(read.isReadOnly && read.rowCount == 2 && read.columns == ["title", "n"])
            #expect(read.data == [["title": "a", "n": 1], ["title": "b", "n": 2]] && read.message == "Query returned 2 row(s)")
            let rows = try await admin.tables.data.fetch(table.id)
            #expect(rows.data.count == 2, "the rows are the table's, as the REST API sees them")

            let history = try await admin.sql.history()
            #expect(history.history.map(\.query) == ["SELECT title, n FROM notes ORDER BY n", "INSERT INTO notes (title, n) VALUES ('a', 1), ('b', 2)"])
            #expect(history.history.first?.rowCount == 2)
            try await admin.sql.clearHistory()
            #expect(try await admin.sql.history().history.isEmpty)
        }
    }

    @Test func refusalsLeaveNothingBehind() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            _ = try await admin.tables.create(payload: TableCreate(name: "notes", tableSchema: ["title": ColumnSchema(type: "text")]))
            func expectBadRequest(_ query: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) async {
                await expectError(query, { if case .badRequest(let detail) = $0 { detail.contains(words) } else { false } }, sourceLocation: sourceLocation) {
                    _ = try await admin.sql.query(query: query)
                }
            }
            // SelfDB's own checks, with its words.
            await expectBadRequest("select pg_read_file('/etc/passwd')", "Query contains prohibited pattern for security reasons")
            await expectBadRequest("delete from sql_history", "Cannot modify protected system table: sql_history")
            // The database's error, and no history entry (SelfDB's lands in an aborted transaction).
            await expectBadRequest("select * from nope_t", "no such table: nope_t")
            // The emulator's own limits.
            await expectBadRequest("SELECT * FROM _selfdb_users", "keeps its own tables out of SQL")
            await expectBadRequest("select * from \"_SELFDB_users\"", "keeps its own tables out of SQL")
            await expectBadRequest("DROP TABLE notes", "create and change tables through /tables")
            await expectBadRequest("INSERT INTO notes (title) VALUES ('kept?'); PRAGMA writable_schema = 1", "is not run here")
            // Refused on the text, before SQLite compiles it (a pragma takes effect as it compiles).
            await expectBadRequest("PRAGMA query_only = 1", "'PRAGMA' is not run here")
            await expectBadRequest("EXPLAIN PRAGMA query_only = 1", "'PRAGMA' is not run here")
            await expectBadRequest("SELECT 1; EXPLAIN QUERY PLAN PRAGMA query_only = 1", "'PRAGMA' is not run here")
            // SQLite takes a string literal for a table name: those are looked at too.
            await expectBadRequest("SELECT * FROM '_selfdb_users'", "keeps its own tables out of SQL")
            await expectBadRequest("UPDATE '_selfdb_users' SET role = 'ADMIN'", "keeps its own tables out of SQL")
            await expectBadRequest("SELECT * FROM 'sqlite_master'", "keeps its own tables out of SQL")
            let written = try await admin.sql.query(query: "INSERT INTO notes (title) VALUES ('a'), ('b'); UPDATE notes SET title = 'c' WHERE 0")
            #expect(written.rowCount == 2, "the writer is still writable, and the count is the first statement's, as psycopg's")
            _ = try await admin.sql.query(query: "DELETE FROM notes")
            #expect(try await admin.sql.query(query: "select count(*) as n from notes").data == [["n": 0]], "a refused batch ran no statement")
            #expect(try await admin.sql.history().history.count == 3, "only the queries that ran are in the history")

            let (user, _) = try await fixture.newUser()
            await expectError("403 for a user", { if case .permissionDenied(let detail) = $0 { detail == "Admin access required for SQL operations" } else { false } }) {
                _ = try await user.sql.query(query: "select 1")
            }
            await expectError("401 without a user", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().sql.history()
            }
            await expectError("403 for snippets", { if case .permissionDenied = $0 { true } else { false } }) { _ = try await user.sql.snippets.list() }
        }
    }

    @Test func snippetsAreOwnOrShared() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let (second, secondUser) = try await fixture.newUser("second")
            _ = try await admin.auth.users.update(secondUser.id, payload: UserUpdate(role: .admin))
            let mine = try await admin.sql.snippets.create(payload: SqlSnippetCreate(name: "mine", sqlCode: "select 1"))
            let shared = try await admin.sql.snippets.create(payload: SqlSnippetCreate(name: "shared", sqlCode: "select 2", isShared: true))
            #expect(mine.createdBy == (try await admin.auth.me()).id && !mine.isShared && shared.isShared)
            #expect(try await admin.sql.snippets.list().snippets.map(\.name) == ["shared", "mine"])
            #expect(try await second.sql.snippets.list().snippets.map(\.name) == ["shared"], "another admin sees only what is shared")
            // Any admin may delete any snippet, as on SelfDB.
            try await second.sql.snippets.delete(mine.id)
            await expectError("404 once gone", { if case .notFound(let detail) = $0 { detail == "Snippet not found" } else { false } }) {
                try await admin.sql.snippets.delete(mine.id)
            }
        }
    }
}
