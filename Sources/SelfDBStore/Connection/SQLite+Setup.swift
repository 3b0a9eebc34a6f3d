import Foundation
import GRDBSQLite

extension SQLite {
    /// Something to do on every new connection, given its raw `sqlite3*` handle; returns an
    /// SQLite result code (`SQLITE_OK` to go on).
    public typealias ConnectionSetup = @Sendable (OpaquePointer) -> Int32

    /// Runs `setup` on every connection `SQLite` opens from now on, right after opening it
    /// (connections already open are left alone). Setting the same `key` again replaces the
    /// earlier setup; setups run in the order their keys were first set.
    ///
    /// For libraries whose schema needs something on every connection to a file. CRDTSQLite
    /// registers the SQL functions its tracking triggers call this way, so that a plain
    /// `SQLite` connection writing a tracked table is tracked like the CRDT object's own
    /// (connections opened by other libraries do not get them: see CRDTSQLite). A setup that
    /// returns an error code fails the open with ``SQLiteError/openFailed(path:message:code:)``.
    public static func setConnectionSetup(_ key: String, _ setup: @escaping ConnectionSetup) {
        connectionSetups.set(key, setup)
    }

    static let connectionSetups = ConnectionSetups()

    /// The registered setups, behind a lock: any thread may open a connection.
    final class ConnectionSetups: @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [String] = []
        private var setups: [String: ConnectionSetup] = [:]

        func set(_ key: String, _ setup: @escaping ConnectionSetup) {
            lock.withLock {
                if setups.updateValue(setup, forKey: key) == nil { keys.append(key) }
            }
        }

        /// The setups in order (a copy: they run outside the lock).
        var all: [(key: String, setup: ConnectionSetup)] {
            lock.withLock { keys.compactMap { key in setups[key].map { (key, $0) } } }
        }
    }
}
