import Foundation

/// Polls `condition` every 10 ms for up to 20 s, for what a server or proxy reaches on its own
/// threads (a passing test never waits that long); false if it never held.
@discardableResult
public func waitUntil(_ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}
