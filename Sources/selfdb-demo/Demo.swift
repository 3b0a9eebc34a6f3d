import Foundation
import SelfDB

/// The README demo: the generated SelfDB client doing what an app does, printing each step.
///
/// It runs in parts (the client and realtime, the offline-first cache, Synchro); a part that
/// fails is reported and the others still run, a part whose service is not reachable is
/// skipped with a plain message, and the exit status is non-zero only when a part that ran
/// failed. Each part removes what it wrote, so the demo can run again on the same server.
@main
@MainActor
enum Demo {
    static func main() async {
        let target: DemoTarget
        do {
            target = try await DemoTarget.start()
        } catch {
            print("\nDemo failed: \(error)")
            exit(1)
        }
        let parts = DemoParts()
        let selfdb = SelfDB(baseURL: target.baseURL, apiKey: target.apiKey, logger: DemoLogger.logger)
        await parts.run("Client") { try await NotesDemo.run(selfdb, target: target, parts: parts) }
        await parts.run("Offline-first cache") { try await OfflineDemo.run(target) }
        await parts.run("Synchro") { try await SyncDemo.run() }
        await target.stop()
        parts.printSummary()
        exit(parts.anyFailed ? 1 : 0)
    }

    static func step(_ text: String) {
        print("\n▸ \(text)")
    }
}
