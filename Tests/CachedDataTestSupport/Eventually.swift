import Foundation

/// Waits until `condition` holds, for things that happen on their own (a fetcher following a
/// cache change, the queue replaying). Not a timing assertion: the limit is only there so a
/// broken build fails instead of hanging, and it is far beyond what any of them takes.
public func eventually(_ what: String = "condition", within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// A fresh folder for one test's cache files.
public func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cacheddata-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
