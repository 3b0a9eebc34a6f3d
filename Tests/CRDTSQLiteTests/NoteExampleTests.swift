import CRDTSQLite
import Foundation
import Testing

extension CRDTSuite {
    /// The CRDT-SQLite note's examples, as written there (file paths made temporary).
    @Suite("the note's examples")
    struct NoteExampleTests {
        @Test func twoNodeSyncExample() throws {
            let files = try TemporaryFiles()
            // Create two nodes
            let db1 = try CRDTSQLite<Int64>(path: files.path("node1.db"), nodeId: 1)
            let db2 = try CRDTSQLite<Int64>(path: files.path("node2.db"), nodeId: 2)

            // Setup schema on both nodes
            let schema = """
                    CREATE TABLE IF NOT EXISTS users (
                        id INTEGER PRIMARY KEY,
                        name TEXT,
                        email TEXT
                    )
                """

            try db1.execute(schema)
            try db1.enableCRDT(for: "users")

            try db2.execute(schema)
            try db2.enableCRDT(for: "users")

            // Node 1 writes
            try db1.execute("INSERT INTO users (name, email) VALUES ('Alice', 'alice@example.com')")
            try db1.execute("INSERT INTO users (name, email) VALUES ('Bob', 'bob@example.com')")

            // Node 2 writes (concurrent)
            try db2.execute("INSERT INTO users (name, email) VALUES ('Charlie', 'charlie@example.com')")

            // Sync: Node 1 → Node 2
            let changes1 = try db1.getChangesSince(0)
            let accepted1 = try db2.mergeChanges(changes1)

            // Sync: Node 2 → Node 1
            let changes2 = try db2.getChangesSince(0)
            let accepted2 = try db1.mergeChanges(changes2)

            #expect(changes1.count == 6)  // two records, each created with two columns
            #expect(!accepted1.isEmpty && !accepted2.isEmpty)
            // The note's comment says both nodes now have Alice, Bob and Charlie. With INTEGER ids
            // chosen independently, Alice (node 1) and Charlie (node 2) are both record 1, and
            // last-writer-wins keeps one of them on both nodes — identically. That is what
            // converging means; use UUID ids for records created on several nodes.
            #expect(try rows(db1) == rows(db2))
            #expect(try rows(db1) == [[.integer(1), .text("Charlie"), .text("charlie@example.com")], [.integer(2), .text("Bob"), .text("bob@example.com")]])
        }

        @Test func conflictResolutionExample() throws {
            let files = try TemporaryFiles()
            // Setup
            let db1 = try usersNode(1, files)
            let db2 = try usersNode(2, files)

            // Insert initial record on both nodes (synced)
            try db1.execute("INSERT INTO users (id, name, email) VALUES (1, 'Alice', 'alice@example.com')")
            let initialChanges = try db1.getChangesSince(0)
            _ = try db2.mergeChanges(initialChanges)

            // Concurrent conflicting updates
            // Node 1 updates email
            try db1.execute("UPDATE users SET email = 'alice.new@example.com' WHERE id = 1")

            // Node 2 updates name (no coordination!)
            try db2.execute("UPDATE users SET name = 'Alice Smith' WHERE id = 1")

            // Sync both directions
            let changes1 = try db1.getChangesSince(try #require(initialChanges.last).dbVersion)
            _ = try db2.mergeChanges(changes1)

            let changes2 = try db2.getChangesSince(try #require(initialChanges.last).dbVersion)
            _ = try db1.mergeChanges(changes2)

            // Result: BOTH changes are kept!
            let expected: [[SQLiteValue]] = [[.integer(1), .text("Alice Smith"), .text("alice.new@example.com")]]
            #expect(try rows(db1) == expected)
            #expect(try rows(db2) == expected)
        }

        @Test func uuidRecordIDsWithTheCAPI() throws {
            let files = try TemporaryFiles()
            let db = try CRDTSQLite<UUID>(path: files.path("myapp.db"), nodeId: 1)

            try db.execute(
                """
                    CREATE TABLE items (
                        id BLOB PRIMARY KEY,
                        title TEXT
                    )
                """
            )
            try db.enableCRDT(for: "items")

            // Generate UUID for new record
            let uuid = UUID()
            let stmt = try db.prepare("INSERT INTO items (id, title) VALUES (?, ?)")
            defer { sqlite3_finalize(stmt) }

            // Bind UUID as BLOB
            uuid.data.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(stmt, 1, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT)
            }
            sqlite3_bind_text(stmt, 2, "My Item", -1, SQLITE_TRANSIENT)
            #expect(sqlite3_step(stmt) == SQLITE_DONE)

            let changes = try db.getChangesSince(0)
            #expect(changes.map(\.recordId) == [uuid, uuid])
            #expect(changes.last?.value?.stringValue == "My Item")

            let other = try CRDTSQLite<UUID>(path: files.path("other.db"), nodeId: 2)
            try other.execute("CREATE TABLE items (id BLOB PRIMARY KEY, title TEXT)")
            try other.enableCRDT(for: "items")
            #expect(try other.mergeChanges(changes).count == 2)
            #expect(try rows(db, "items") == rows(other, "items"))
        }

        @Test func valuesAndErrorsAsTheNoteShowsThem() throws {
            let files = try TemporaryFiles()
            let db = try usersNode(1, files)
            let stmt = try db.prepare("INSERT INTO users (name, email) VALUES (?, ?)")
            defer { sqlite3_finalize(stmt) }
            let name: SQLiteValue = .text("Alice")
            let age: SQLiteValue = .integer(30)
            name.bind(to: stmt, at: 1)
            age.bind(to: stmt, at: 2)
            #expect(sqlite3_step(stmt) == SQLITE_DONE)
            #expect(SQLiteValue.text("Hello").sqlString == "'Hello'")
            #expect(SQLiteValue.text("it's").sqlString == "'it''s'")
            #expect(SQLiteValue.integer(42).sqlString == "42")
            #expect(SQLiteValue.null.sqlString == "NULL")
            #expect(SQLiteValue.blob(Data([1, 255])).sqlString == "X'01FF'")
            #expect(SQLiteValue.real(3.14).doubleValue == 3.14 && SQLiteValue.integer(42).intValue == 42)

            do {
                try db.execute("INVALID SQL")
                Issue.record("invalid SQL ran")
            } catch CRDTError.executionFailed(let sql, let message, let code) {
                #expect(sql == "INVALID SQL" && message.contains("syntax error") && code != 0)
                #expect(CRDTError.executionFailed(sql, message, code).localizedDescription.contains("syntax error"))
            }
            #expect(throws: CRDTError.tableNotFound("nope")) { try db.enableCRDT(for: "nope") }
        }
    }
}
