import Foundation
import GRDB
import Testing

@testable import EmulatorSupport
@testable import SynchroEmulator

/// A pull or rebuild page writes rows straight from SQLite's values into their served form
/// (``ServedRowReader``); it must give exactly what the general path gives (the row read into a
/// ``StoredRow``, then served as a `JSONValue`), whatever the file holds.
@Suite("Synchro protocol 2: rows served straight from SQLite")
struct ServedRowTests {
    /// Texts the emulator writes, and texts an older emulator, an operator or a hand edit may
    /// have left in a timestamp column.
    static let timestamps = [
        "2026-03-20T18:20:00.000Z", "1970-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
        "2024-02-29T12:00:00.000Z", "2023-02-29T12:00:00.000Z", "2026-02-30T00:00:00.000Z", "2026-13-01T00:00:00.000Z",
        "2026-00-10T00:00:00.000Z", "2026-01-00T00:00:00.000Z", "2026-01-31T24:00:00.000Z", "2026-01-31T23:60:00.000Z",
        "2026-01-31T23:59:60.000Z", "2026-03-20 18:20:00.000Z", "2026-03-20t18:20:00.000Z", "2026-03-20T18:20:00.000z",
        "2026-03-20T18:20:00Z", "2026-03-20T18:20:00.1Z", "2026-03-20T18:20:00.123456Z", "2026-03-20T18:20:00.000+02:00",
        "2026-03-20T18:20:00.000-00:30", "2026-03-20T18:20:00,000Z", "2026-03-20T18:20:00.00aZ", "+026-03-20T18:20:00.000Z",
        "2026-03-20T18:20:00.000Z ", "", "yesterday", "2026-03-20",
    ]

    @Test(arguments: timestamps)
    func aTimestampIsCanonicalExactlyWhenParsingAndPrintingGivesItBack(_ text: String) {
        #expect(SyncTimestamp.isCanonical(text) == (SyncTimestamp(parsing: text)?.text == text))
    }

    @Test func theDirectPathServesWhatTheGeneralPathServes() throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(
            """
            spec: 1
            tables:
              Reading:
                table: readings
                sync: { owner: user_id }
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: { type: uuid, nullable: false }
                  value: float
                  count: integer
                  done: boolean
                  details: json
                  note: text
                  day: date
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
              Tag:
                table: tags
                sync: { owner: user_id, exclude: [secret] }
                columns:
                  id: { type: text, primaryKey: true }
                  user_id: { type: uuid, nullable: false }
                  secret: text
                  label: text
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """,
            in: directory
        )
        let schema = try SyncSchema.load([spec])
        let store = try SynchroStore(path: directory.appendingPathComponent("synchro.sqlite").path, schema: schema, ownerIndexes: false)
        let readings = try #require(schema.table("readings"))
        let tags = try #require(schema.table("tags"))
        // value, count, done, details, note: the rows with a float or a nested value take the
        // general path, the others the direct one.
        let values: [(row: [DatabaseValue], direct: Bool)] = [
            ([.null, 3.databaseValue, 1.databaseValue, #""text""#.databaseValue, "line\nbreak \u{e9}\u{1F600}\u{7}".databaseValue], true),
            ([(1.5).databaseValue, .null, 0.databaseValue, #"{"b":1,"a":[1.5,"x\"y"]}"#.databaseValue, "tab\there".databaseValue], false),
            ([.null, "12".databaseValue, 2.databaseValue, "not json".databaseValue, Data([0, 1, 2]).databaseValue], true),
            ([.null, .null, .null, "12".databaseValue, 42.databaseValue], true),
            ([(7).databaseValue, .null, .null, "[1]".databaseValue, "\"quoted\" back\\slash".databaseValue], false),
        ]
        var ids: [String] = []
        var direct: Set<String> = []
        try store.pool.write { db in
            for (index, updatedAt) in Self.timestamps.enumerated() {
                let id = UUID().uuidString.lowercased()
                ids.append(id)
                if values[index % values.count].direct { direct.insert(id) }
                let row = values[index % values.count].row
                let deletedAt: DatabaseValue = index % 3 == 0 ? Self.timestamps[(index + 5) % Self.timestamps.count].databaseValue : .null
                try db.execute(
                    sql: """
                        INSERT INTO _synchro_row_readings (_synchro_owner, id, user_id, value, count, done, details, note, day, updated_at, deleted_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: StatementArguments(["u".databaseValue, id.databaseValue, "u".databaseValue] + row + ["2026-03-20".databaseValue, updatedAt.databaseValue, deletedAt])
                )
            }
            try db.execute(sql: "UPDATE _synchro_row_readings SET updated_at = 1700000000 WHERE rowid = 1")
            for key in 1...3 {
                try db.execute(
                    sql: "INSERT INTO _synchro_row_tags (_synchro_owner, id, user_id, secret, label, updated_at) VALUES ('u', ?, 'u', 's', ?, ?)",
                    arguments: ["k\(key)", "label \(key)", Self.timestamps[key]]
                )
            }
        }
        try store.pool.read { db in
            for (table, keys) in [(readings, ids), (tags, ["k1", "k2", "k3"])] {
                let reader = ServedRowReader(table)
                var seen = 0
                try SyncRowStore.forEachRow(table, ids: keys, in: db) { key, row in
                    seen += 1
                    let served = reader.read(row)
                    let general = ServedRow(SyncRowStore.storedRow(row, table), table: table)
                    #expect(served == general, "\(table.name)/\(key): \(String(decoding: served.canonical, as: UTF8.self))")
                    #expect((reader.directly(row) != nil) == (table.name == "tags" || direct.contains(key)), "\(table.name)/\(key)")
                }
                #expect(seen == keys.count)
            }
        }
    }
}
