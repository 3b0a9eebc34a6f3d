import Foundation
import Testing

@testable import SelfDBSpec

/// The scope keys of `sync:` beyond `owner` and `parent` — `shared`, `sql` — and the column
/// selection (`exclude`, `columns`), with the push policy they imply; every mistake located.
@Suite("Sync scope keys and column selection")
struct SyncScopeKeyTests {
    /// A table whose `sync:` is on line 4; its columns are on lines 6–11.
    static func spec(_ sync: String) -> String {
        """
        tables:
          Region:
            table: regions
            sync: \(sync)
            columns:
              id: { type: uuid, primaryKey: true }
              user_id: uuid
              name: text
              title: { type: text, nullable: false }
              updated_at: timestamp
              deleted_at: timestamp
        """
    }

    static func diagnostics(_ sync: String) -> [String] {
        SpecCompiler.compile(spec(sync), file: "s.yaml").diagnostics.map(\.description)
    }

    static func declaration(_ sync: String) throws -> SyncDeclaration {
        let output = SpecCompiler.compile(spec(sync), file: "s.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        return try #require(output.spec?.tables.first?.sync)
    }

    @Test("shared, sql, exclude and columns load with their locations; push defaults by scope key")
    func loads() throws {
        let shared = try Self.declaration("{ shared: global }")
        #expect(shared.shared == Located("global", at: SourceLocation(file: "s.yaml", line: 4, column: 21)))
        #expect(shared.push == .disabled, "a shared table is read-only unless it says otherwise")
        #expect(shared.pushLocation == nil)
        #expect(try Self.declaration("{ shared: global, push: enabled }").push == .enabled)

        let query = try Self.declaration("{ sql: \"SELECT 'user:' || user_id FROM regions WHERE id = $1\" }")
        #expect(query.scopeQuery?.value == "SELECT 'user:' || user_id FROM regions WHERE id = $1")
        #expect(query.push == .enabled)
        #expect(try Self.declaration("{ owner: user_id }").push == .ownerOnly)

        let excluded = try Self.declaration("{ owner: user_id, exclude: [name] }")
        #expect(excluded.excludedColumns?.names.map(\.value) == ["name"])
        #expect(excluded.excludedColumns?.location == SourceLocation(file: "s.yaml", line: 4, column: 29))
        #expect(excluded.syncedColumns == nil)
        let listed = try Self.declaration("{ owner: user_id, columns: [id, user_id, title, updated_at, deleted_at] }")
        #expect(listed.syncedColumns?.names.map(\.value) == ["id", "user_id", "title", "updated_at", "deleted_at"])
    }

    @Test("a block sql and a block list load too")
    func blockForms() throws {
        let text = """
            tables:
              Doc:
                table: docs
                sync:
                  sql: |
                    SELECT 'user:' || user_id FROM docs WHERE id = $1
                  exclude:
                    - secret
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: uuid
                  secret: text
                  updated_at: timestamp
                  deleted_at: timestamp
            """
        let output = SpecCompiler.compile(text, file: "d.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let sync = try #require(output.spec?.tables.first?.sync)
        #expect(sync.scopeQuery?.value == "SELECT 'user:' || user_id FROM docs WHERE id = $1\n")
        #expect(sync.excludedColumns?.names == [Located("secret", at: SourceLocation(file: "d.yaml", line: 8, column: 11))])
    }

    @Test("a parent chain may end at a shared or sql table")
    func parentOfShared() {
        let text = """
            tables:
              Region:
                table: regions
                sync: { shared: global }
                columns:
                  id: { type: uuid, primaryKey: true }
                  updated_at: timestamp
                  deleted_at: timestamp
              City:
                table: cities
                sync: { parent: regions, parentKey: region_id }
                columns:
                  id: { type: uuid, primaryKey: true }
                  region_id: uuid
                  updated_at: timestamp
                  deleted_at: timestamp
            """
        #expect(SpecCompiler.compile(text, file: "c.yaml").diagnostics.isEmpty)
    }

    @Test("scope keys: unknown, two at once, a reserved or blank shared id, a blank query")
    func scopeKeyMistakes() {
        #expect(
            Self.diagnostics("{ shard: global }") == [
                "s.yaml:4:5: error: sync of 'Region' needs one of 'owner: COLUMN' (rows of the user id in that column), 'parent: TABLE' with 'parentKey: COLUMN' (rows in the parent row's scopes), 'shared: NAME' (rows every client gets) and 'sql: QUERY' (rows in the scopes a query returns)",
                "s.yaml:4:13: error: unknown key 'shard' in 'sync' of 'Region'; did you mean 'shared'?",
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, shared: global }") == [
                "s.yaml:4:37: error: sync of 'Region' gives both 'owner' and 'shared'; a synced table takes its scopes from exactly one of 'owner', 'parent', 'shared' and 'sql'"
            ]
        )
        #expect(
            Self.diagnostics("{ shared: global, sql: \"SELECT 'global'\" }") == [
                "s.yaml:4:34: error: sync of 'Region' gives both 'shared' and 'sql'; a synced table takes its scopes from exactly one of 'owner', 'parent', 'shared' and 'sql'"
            ]
        )
        #expect(
            Self.diagnostics("{ shared: \"user:everyone\" }") == [
                "s.yaml:4:21: error: shared scope 'user:everyone' of 'Region' starts with 'user:', which is reserved for each user's own scope; name it without it, e.g. 'global'"
            ]
        )
        #expect(Self.diagnostics("{ shared: \" \" }") == ["s.yaml:4:21: error: shared scope of 'Region' is blank; name it, e.g. 'global'"])
        #expect(Self.diagnostics("{ shared: \"\" }").contains("s.yaml:4:21: error: 'sync.shared' must not be empty"))
        #expect(
            Self.diagnostics("{ sql: \"  \" }") == [
                "s.yaml:4:18: error: 'sql' of 'Region' is blank; give the query that returns the scope ids of the record whose key is $1"
            ]
        )
        #expect(
            Self.diagnostics("{ shared: global, parentKey: user_id }") == [
                "s.yaml:4:40: error: 'parentKey' of 'Region' needs 'parent: TABLE'; a table with 'shared' has no parent"
            ]
        )
    }

    @Test("push: owner_only needs a table with an owner, enabled suits any (it lifts the ownership check); a misspelt policy is suggested")
    func pushMistakes() {
        #expect(Self.diagnostics("{ owner: user_id, push: enabled }") == [])
        #expect(Self.diagnostics("{ owner: user_id, push: owner_only }") == [])
        #expect(
            Self.diagnostics("{ shared: global, push: owner_only }") == [
                "s.yaml:4:35: error: push 'owner_only' needs an owner, and a table with 'shared' has none; write 'push: enabled' to let every client write 'Region', or 'disabled'"
            ]
        )
        #expect(
            Self.diagnostics("{ shared: global, push: enable }") == [
                "s.yaml:4:35: error: unknown push policy 'enable'; did you mean 'enabled'?"
            ]
        )
    }

    @Test("column selection: both lists, unknown or repeated names, required columns left out, a column no insert could fill")
    func columnMistakes() {
        #expect(
            Self.diagnostics("{ owner: user_id, exclude: [name], columns: [id] }") == [
                "s.yaml:4:46: error: sync of 'Region' gives both 'exclude' and 'columns'; list the columns that sync or the ones left out, not both"
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, exclude: [nme, name, name] }") == [
                "s.yaml:4:39: error: 'exclude' of 'Region' names 'nme', which is not a column of 'Region'; did you mean 'name'?",
                "s.yaml:4:50: error: 'exclude' of 'Region' lists 'name' twice",
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, exclude: [id, updated_at, user_id] }") == [
                "s.yaml:4:39: error: 'exclude' of 'Region' leaves out 'id', the primary key; it always syncs",
                "s.yaml:4:43: error: 'exclude' of 'Region' leaves out 'updated_at', the 'updatedAt' column; it always syncs",
                "s.yaml:4:55: error: 'exclude' of 'Region' leaves out 'user_id', the owner column, which a row's scope is read from; it always syncs",
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, exclude: [title] }") == [
                "s.yaml:4:39: error: 'exclude' of 'Region' leaves out 'title', which is not nullable and has no default, so no pushed insert could fill it; make it nullable or give it a default"
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, columns: [user_id, title, updated_at] }") == [
                "s.yaml:4:29: error: 'columns' of 'Region' leaves out 'id', the primary key; it always syncs",
                "s.yaml:4:29: error: 'columns' of 'Region' leaves out 'deleted_at', the 'deletedAt' column; it always syncs",
            ]
        )
        #expect(
            Self.diagnostics("{ owner: user_id, exclude: name }") == [
                "s.yaml:4:38: error: 'sync.exclude' of 'Region' must be a list of column names, found a scalar"
            ]
        )
    }

    @Test("a valid selection compiles cleanly in both forms")
    func validSelections() {
        #expect(Self.diagnostics("{ owner: user_id, exclude: [name] }").isEmpty)
        #expect(Self.diagnostics("{ shared: global, columns: [id, title, updated_at, deleted_at] }").isEmpty)
    }
}
