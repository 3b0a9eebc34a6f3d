import Foundation
import SelfDB
import SelfDBRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A process of an app that shares its session file with others (an app and its widget), for
// the shared-session tests:
//
//   selfdb-session-helper rounds BASE_URL API_KEY STORE COMMANDS CALLS
//       signs nothing in: uses the session in STORE. Prints "ready", then for each line
//       "round N" read from the FIFO COMMANDS makes CALLS calls of auth.me() at once and prints
//       "done N ok=… failed=… session=yes|no detail=…"; "quit" ends it.
//   selfdb-session-helper hold-lock STORE
//       takes STORE's refresh lock, prints "locked", and waits to be killed.

/// One line to the test, unbuffered.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    say("usage: selfdb-session-helper rounds|hold-lock …")
    exit(2)
}

switch arguments[1] {
case "hold-lock":
    let store = FileTokenStore(url: URL(fileURLWithPath: arguments[2]))
    try await store.withRefreshLock {
        say("locked")
        while true { try await Task.sleep(for: .seconds(60)) }
    }
case "rounds" where arguments.count == 7:
    guard let url = URL(string: arguments[2]), let calls = Int(arguments[6]) else { exit(2) }
    let selfdb = SelfDB(baseURL: url, apiKey: arguments[3], tokenStore: FileTokenStore(url: URL(fileURLWithPath: arguments[4])), retryPolicy: .none)
    say("ready")
    guard let commands = fopen(arguments[5], "r") else {
        say("cannot open \(arguments[5])")
        exit(1)
    }
    var buffer = [CChar](repeating: 0, count: 256)
    while fgets(&buffer, Int32(buffer.count), commands) != nil {
        let line = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
        if line == "quit" { break }
        guard line.hasPrefix("round ") else { continue }
        let round = line.dropFirst("round ".count)
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<calls {
                group.addTask {
                    do {
                        _ = try await selfdb.auth.me()
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var results: [String?] = []
            for await result in group { results.append(result) }
            return results
        }
        let failures = results.compactMap { $0 }
        let signedIn = await selfdb.session != nil
        say("done \(round) ok=\(calls - failures.count) failed=\(failures.count) session=\(signedIn ? "yes" : "no") detail=\(failures.first ?? "-")")
    }
default:
    say("unknown mode \(arguments[1])")
    exit(2)
}
