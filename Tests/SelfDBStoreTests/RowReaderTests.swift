import Foundation
import SelfDBStore
import Testing

/// Reading rows in place with `forEachRow`: the same values as `Row`, and errors end the loop.
@Suite("reading rows in place")
struct RowReaderTests {
    @Test func readsWhatRowsRead() throws {
        let db = try SQLite()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, photo BLOB, score REAL)")
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", 1, "Ada ✓", Data([0, 1, 2]), 1.5)
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", 2, nil, nil, nil)
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", 3, "", Data(), 0)
        let statement = try db.prepare("SELECT id, name, photo, score FROM t ORDER BY id")
        var seen: [String] = []
        try statement.execute().forEachRow { (row: RowReader) in
            #expect(row.columnCount == 4)
            let photo: [UInt8] = row.withBytes(2) { Array($0) }
            let id: Int = row.get(0) ?? -1
            let name: String = row.string(1) ?? "nil"
            let score: String = row.get(3, as: Double.self).map { String($0) } ?? "nil"
            seen.append("\(id)|\(name)|\(photo)|\(score)|\(row.isNull(1))")
        }
        #expect(seen == ["1|Ada ✓|[0, 1, 2]|1.5|false", "2|nil|[]|nil|true", "3||[]|0.0|false"])
        try statement.execute().forEachRow { (row: RowReader) in
            #expect(row.int64(0) != nil && row.int64(1) == nil && row.double(0) == nil)
            #expect(row.double(3) == row.get(3, as: Double.self))
        }
        let rows = try statement.execute().all()
        #expect(rows.map { $0["name"] as String? } == ["Ada ✓", nil, ""])
    }

    @Test func aRowKeptWhileTheStatementMovesOnKeepsItsValues() throws {
        // Rows reuse the storage of the previous row when nobody holds it; one that is held
        // must not see the next row's values.
        let db = try SQLite()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
        let statement = try db.execute("SELECT id, name FROM t ORDER BY id")
        let first = try #require(try statement.nextRow())
        let second = try #require(try statement.nextRow())
        var kept: [Row] = []
        while let row = try statement.nextRow() { kept.append(row) }
        #expect(first.values == [.integer(1), .text("one")])
        #expect(second.values == [.integer(2), .text("two")])
        #expect(kept.map(\.values) == [[.integer(3), .text("three")]])
        let all = try db.execute("SELECT id, name FROM t ORDER BY id").all()
        #expect(all.map { $0[1] as String? } == ["one", "two", "three"])
    }

    @Test func anErrorFromTheBodyEndsTheLoopAndTheStatementRunsAgain() throws {
        struct Stop: Error {}
        let db = try SQLite()
        try db.executeScript("CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2), (3);")
        let statement = try db.prepare("SELECT v FROM n ORDER BY v")
        var count = 0
        #expect(throws: Stop.self) {
            try statement.execute().forEachRow { _ in
                count += 1
                if count == 2 { throw Stop() }
            }
        }
        #expect(count == 2)
        var values: [Int] = []
        try statement.execute().forEachRow { values.append($0.get(0) ?? 0) }
        #expect(values == [1, 2, 3])
    }
}
