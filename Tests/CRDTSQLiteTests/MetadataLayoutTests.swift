import CRDTSQLite
import Foundation
import Testing

extension CRDTSuite {
    /// One metadata row per record: a fresh insert stores only its column count (every cell is
    /// stamped like the record's life), later writes pack the cells. The feed and merges must
    /// read both forms alike.
    @Suite("CRDT metadata layout")
    struct MetadataLayoutTests {
        @Test func insertThenUpdateThenReplaceKeepsPerColumnVersions() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'ada@a')")
            #expect(try a.connection.execute("SELECT typeof(cells) FROM _crdt_rows").one()[0] == "integer")
            try a.execute("UPDATE users SET email = 'ada@b' WHERE id = 1")
            #expect(try a.connection.execute("SELECT typeof(cells) FROM _crdt_rows").one()[0] == "blob")
            var cells = try a.getChangesSince(0).filter { $0.columnName != nil }
            #expect(cells.map(\.columnName) == ["name", "email"], "cursor order: the update comes after the insert")
            #expect(cells.map(\.columnVersion) == [1, 2])
            #expect(cells.map(\.dbVersion) == [1, 2])
            // REPLACE over a live record bumps every column.
            try a.execute("INSERT OR REPLACE INTO users VALUES (1, 'Ada R', 'ada@r')")
            cells = try a.getChangesSince(0).filter { $0.columnName != nil }
            #expect(Set(cells.map { "\($0.columnName ?? "")=\($0.columnVersion)@\($0.dbVersion)" }) == ["email=3@3", "name=2@3"])
            #expect(try a.connection.execute("SELECT col, col_version FROM _crdt_columns ORDER BY col").all().map { $0.values } == [[.text("email"), .integer(3)], [.text("name"), .integer(2)]])
        }

        @Test func aMergedInsertIsStoredCompactlyAndReadsBackTheSame() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL), (2, 'Bo', 'bo@b')")
            try a.execute("UPDATE users SET name = 'Bo B' WHERE id = 2")
            _ = try b.mergeChanges(try a.getChangesSince(0))
            #expect(try b.connection.execute("SELECT typeof(cells) FROM _crdt_rows ORDER BY pk").all().map { $0[0] as String? } == ["integer", "blob"])
            let stripped = { (changes: [Change<Int64>]) in
                Set(changes.map { "\($0.recordId) \($0.columnName ?? "-") \($0.columnVersion) \($0.dbVersion) \($0.nodeId) \(String(describing: $0.value))" })
            }
            #expect(stripped(try b.getChangesSince(0)) == stripped(try a.getChangesSince(0)))
            #expect(try a.mergeChanges(try b.getChangesSince(0)).isEmpty)
            // A conflicting update on b packs the merged record's cells and wins on a.
            try b.execute("UPDATE users SET email = 'ada@b' WHERE id = 1")
            _ = try a.mergeChanges(try b.getChangesSince(0))
            #expect(try rows(a) == rows(b))
        }
    }
}

extension CRDTSuite.MetadataLayoutTests {
    /// One metadata row holds changes of several writes: the feed must still come in cursor
    /// order, or a page cut after a later write would skip a record's earlier changes.
    @Test func pagingThroughUpdatedRecordsMissesNothing() throws {
        for pageSize in 1...4 {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'ada@a')")
            try a.execute("INSERT INTO users VALUES (2, 'Bo', 'bo@b')")
            try a.execute("UPDATE users SET name = 'Ada A' WHERE id = 1")
            try a.execute("INSERT INTO users VALUES (3, 'Cy', NULL)")
            try a.execute("UPDATE users SET email = 'bo@c' WHERE id = 2")
            let all = try a.getChangesSince(0)
            #expect(all.map(\.localDbVersion) == all.map(\.localDbVersion).sorted(), "page size \(pageSize)")
            var cursor: UInt64 = 0
            while true {
                let page = try a.getChangesSince(cursor, maxChanges: pageSize)
                guard let last = page.last else { break }
                _ = try b.mergeChanges(page)
                cursor = last.localDbVersion
            }
            #expect(try rows(b) == rows(a), "page size \(pageSize)")
            #expect(try b.getChangesSince(0).count == all.count, "page size \(pageSize)")
        }
    }
}
