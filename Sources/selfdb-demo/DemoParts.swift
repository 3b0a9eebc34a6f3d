/// The demo's parts and how each went. A part that fails is reported and the next one still
/// runs; a part whose service is not there (realtime not reachable) is skipped and said so.
/// The demo exits non-zero only when a part that ran failed.
@MainActor
final class DemoParts {
    enum Outcome {
        case running, passed
        case skipped(String)
        case failed(String)
    }

    /// In the order the parts started (a part inside another comes after it).
    private(set) var outcomes: [(part: String, outcome: Outcome)] = []

    /// Runs `body` as the part `name`, recording how it went; never throws.
    func run(_ name: String, _ body: () async throws -> Void) async {
        let index = outcomes.count
        outcomes.append((name, .running))
        do {
            try await body()
            outcomes[index].outcome = .passed
        } catch let skip as DemoSkip {
            print("  ⤼ \(skip.reason): skipping the \(name) part; the demo carries on")
            outcomes[index].outcome = .skipped(skip.reason)
        } catch {
            print("\n✗ \(name) failed: \(error)")
            outcomes[index].outcome = .failed(String(describing: error))
        }
    }

    /// Whether a part that ran failed.
    var anyFailed: Bool {
        outcomes.contains { if case .failed = $0.outcome { true } else { false } }
    }

    func printSummary() {
        print(anyFailed ? "\nDemo finished with failures:" : "\nDemo finished.")
        for (part, outcome) in outcomes {
            switch outcome {
            case .running, .passed: print("  ✓ \(part)")
            case .skipped(let reason): print("  – \(part): skipped (\(reason))")
            case .failed(let error): print("  ✗ \(part): \(error)")
            }
        }
    }
}

/// Thrown by a part whose server side is not there, to skip it rather than fail the demo.
struct DemoSkip: Error {
    /// Why, in plain words, e.g. "realtime is not reachable at ws://host/realtime/socket".
    var reason: String
}
