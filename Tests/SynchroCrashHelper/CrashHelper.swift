import Foundation
import Synchro

/// A stand-in app for the Synchro crash test: writes tasks and syncs in a loop until it is
/// killed with SIGKILL, at any moment of a cycle.
///
/// Each step inserts task n (its `priority` is n), edits task n-1 and deletes every fifth
/// task two steps later, commits, prints `COMMITTED n`, and runs a cycle. It resumes from the
/// highest n in its database, so it can be killed and started again on the same file.
///
/// Arguments: server URL, bearer token, database path, client id, user id.
@main
enum CrashHelper {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 6, let url = URL(string: arguments[1]) else {
            print("usage: synchro-crash-helper URL TOKEN DB_PATH CLIENT_ID USER_ID")
            exit(2)
        }
        let token = arguments[2]
        let user = arguments[5]
        do {
            let client = try SynchroClient(
                config: SynchroConfig(
                    dbPath: arguments[3],
                    serverURL: url,
                    authProvider: { token },
                    clientID: arguments[4],
                    appVersion: "1.0.0",
                    syncInterval: 3600,
                    pushDebounce: 3600,
                    maxRetryAttempts: 1,
                    pullPageSize: 3,
                    pushBatchSize: 2
                )
            )
            try await client.start()
            var next = Int((try client.queryOne("SELECT MAX(priority) AS n FROM tasks")?["n"] as Int64?) ?? -1) + 1
            while true {
                try client.writeTransaction { db in
                    try db.execute(
                        sql: "INSERT INTO tasks (id, title, user_id, priority) VALUES (?, ?, ?, ?)",
                        arguments: [taskID(next), "task \(next)", user, next]
                    )
                    if next >= 1 {
                        try db.execute(sql: "UPDATE tasks SET title = ? WHERE id = ?", arguments: ["task \(next - 1) edited", taskID(next - 1)])
                    }
                    if next >= 2, (next - 2) % 5 == 0 {
                        try db.execute(sql: "DELETE FROM tasks WHERE id = ?", arguments: [taskID(next - 2)])
                    }
                }
                FileHandle.standardOutput.write(Data("COMMITTED \(next)\n".utf8))
                try await client.syncNow()
                next += 1
            }
        } catch {
            print("FAILED \(error)")
            exit(1)
        }
    }

    /// A fixed UUID per step, upper case as apps write them.
    static func taskID(_ step: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012d", step).uppercased()
    }
}
