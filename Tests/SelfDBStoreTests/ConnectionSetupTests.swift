import Foundation
import GRDBSQLite
import SelfDBStore
import Testing

/// `SQLite.setConnectionSetup`: what a library installs on every connection (CRDTSQLite's
/// tracking functions). The setup stays registered for the rest of the process, so it is
/// harmless to every other test's connections: it adds a function, and refuses only files
/// whose name says so.
@Suite("SQLite connection setups")
struct ConnectionSetupTests {
    static let register: Void = SQLite.setConnectionSetup("SelfDBStoreTests.setup") { handle in
        if let name = sqlite3_db_filename(handle, "main"), String(cString: name).contains("refused-by-setup") { return SQLITE_CANTOPEN }
        return sqlite3_create_function_v2(
            handle,
            "selfdb_store_test_setup",
            0,
            SQLITE_UTF8 | SQLITE_DETERMINISTIC,
            nil,
            { call, _, _ in
                sqlite3_result_int64(call, 42)
            },
            nil,
            nil,
            nil
        )
    }

    @Test func everyNewConnectionGetsTheSetup() throws {
        Self.register
        let db = try SQLite()
        #expect(try db.execute("SELECT selfdb_store_test_setup()").one()[0] == 42)
        // Setting the same key again replaces the setup instead of running both.
        SQLite.setConnectionSetup("SelfDBStoreTests.setup-replaced") { _ in SQLITE_OK }
        SQLite.setConnectionSetup("SelfDBStoreTests.setup-replaced") { _ in SQLITE_OK }
        #expect(try SQLite().execute("SELECT selfdb_store_test_setup()").one()[0] == 42)
    }

    @Test func aFailingSetupFailsTheOpenWithATypedError() throws {
        Self.register
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("refused-by-setup-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try SQLite(path)
            Issue.record("the open succeeded")
        } catch let SQLiteError.openFailed(failedPath, message, code) {
            #expect(failedPath == path && code == SQLITE_CANTOPEN)
            #expect(message.contains("SelfDBStoreTests.setup"))
        }
    }
}
