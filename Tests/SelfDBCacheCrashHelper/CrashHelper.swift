import Foundation
import SelfDB
import SelfDBCache

/// A stand-in app process for the crash test: signs in, queues one insert through the cache,
/// prints the outcome and then waits to be killed with SIGKILL.
///
/// Arguments: base URL, API key, email, password, cache file path, row id (UUID), user id (UUID).
@main
enum CrashHelper {
    @MainActor static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 7, let url = URL(string: arguments[1]),
            let rowId = UUID(uuidString: arguments[6]), let userId = UUID(uuidString: arguments[7])
        else {
            print("usage: selfdb-cache-crash-helper URL API_KEY EMAIL PASSWORD CACHE_PATH ROW_ID USER_ID")
            exit(2)
        }
        do {
            let selfdb = SelfDB(baseURL: url, apiKey: arguments[2], retryPolicy: .none)
            try await selfdb.auth.login(email: arguments[3], password: arguments[4])
            let cache = try SelfDBCache(selfdb: selfdb, path: arguments[5])
            let outcome = try await cache.insert(Chore(id: rowId, title: "queued before the kill", rank: 42, userId: userId), into: "all")
            // Unbuffered, so the test reads it while this process still runs.
            FileHandle.standardOutput.write(Data((outcome.isConfirmed ? "CONFIRMED\n" : "PENDING\n").utf8))
            while true { try await Task.sleep(for: .seconds(60)) }
        } catch {
            print("FAILED \(error)")
            exit(1)
        }
    }
}
