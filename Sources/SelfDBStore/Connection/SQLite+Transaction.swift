import Foundation
import GRDBSQLite

extension SQLite {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown unchanged).
    ///
    /// Transactions nest: an inner one is a savepoint, rolled back on its own when its body
    /// throws, and durable only once the outermost transaction commits. A rolled-back
    /// savepoint is also released, so it does not linger on the transaction stack.
    ///
    /// Whether a transaction is already open is asked of SQLite, not counted here: a
    /// transaction the app opened with a plain `BEGIN` makes this one a savepoint inside it
    /// too (a CRDT merge inside the app's own transaction used to fail with "cannot start
    /// a transaction within a transaction").
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        let depth = transactionDepth
        let outermost = !isInTransaction
        let savepoint = "selfdb_store_\(depth)"
        try executeScript(outermost ? "BEGIN" : "SAVEPOINT \(savepoint)")
        transactionDepth += 1
        defer { transactionDepth = depth }
        let result: T
        do {
            result = try body()
        } catch {
            // Roll back best-effort: the body's error is the one to report.
            if outermost {
                try? executeScript("ROLLBACK")
            } else {
                try? executeScript("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
            }
            throw error
        }
        do {
            try executeScript(outermost ? "COMMIT" : "RELEASE \(savepoint)")
        } catch {
            if outermost { try? executeScript("ROLLBACK") }
            throw error
        }
        return result
    }

    /// Whether a transaction is open on this connection (explicit or from `transaction`).
    public var isInTransaction: Bool {
        guard let handle = rawHandle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }
}
