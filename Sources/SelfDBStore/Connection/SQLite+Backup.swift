import Foundation
import GRDBSQLite

extension SQLite {
    /// Copies this database into `destination` (whose current content is replaced), in steps
    /// of ``backupBatchSize`` pages.
    ///
    /// Make sure no other connection uses the destination. After each step, and after each
    /// retry when either database is locked, `progress` receives the bytes remaining, the
    /// total bytes of the source, and the retries so far; returning false aborts the backup
    /// (``SQLiteError/backupAborted``). Busy retries wait a little longer each time (up to
    /// 100 ms). The final status of the backup is checked: a failed backup always throws.
    public func backup(to destination: SQLite, progress: ((_ remaining: Int, _ total: Int, _ retries: Int) -> Bool)? = nil) throws {
        try checkOpen()
        try destination.checkOpen()
        guard let backup = sqlite3_backup_init(destination.rawHandle, "main", rawHandle, "main") else {
            throw SQLiteError.backupFailed(message: destination.lastErrorMessage, code: sqlite3_errcode(destination.rawHandle))
        }
        let pageSize: Int = (try? execute("PRAGMA page_size").one())?[0] ?? 4_096
        var retries = 0
        var stepCode: Int32 = SQLITE_OK
        var aborted = false
        while true {
            stepCode = sqlite3_backup_step(backup, Self.backupBatchSize)
            if stepCode == SQLITE_DONE { break }
            let busy = stepCode == SQLITE_BUSY || stepCode == SQLITE_LOCKED
            guard stepCode == SQLITE_OK || busy else { break }
            if busy { retries += 1 }
            let remaining = Int(sqlite3_backup_remaining(backup)) * pageSize
            let total = Int(sqlite3_backup_pagecount(backup)) * pageSize
            if let progress, !progress(remaining, total, retries) {
                aborted = true
                break
            }
            if busy {
                sqlite3_sleep(Int32(min(100, 5 * retries)))
            }
        }
        let finishCode = sqlite3_backup_finish(backup)
        if aborted { throw SQLiteError.backupAborted }
        if stepCode != SQLITE_DONE {
            throw SQLiteError.backupFailed(message: String(cString: sqlite3_errstr(stepCode)), code: stepCode)
        }
        guard finishCode == SQLITE_OK else {
            throw SQLiteError.backupFailed(message: destination.lastErrorMessage, code: finishCode)
        }
    }
}
