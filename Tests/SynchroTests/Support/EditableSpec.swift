import Foundation

/// A copy of `Spec/Examples/tasks-sync.yaml` in a fresh folder, for tests that change the
/// server's schema under a running client (write the new text, then restart the emulator).
struct EditableSpec {
    let directory: URL
    let url: URL
    /// The spec's text as copied.
    let original: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("tasks.yaml")
        original = try String(contentsOf: SyncWorld.tasksSpec, encoding: .utf8)
        try write(original)
    }

    /// Replaces the spec with the original where `target` is `replacement`.
    func change(_ target: String, to replacement: String) throws {
        try write(original.replacingOccurrences(of: target, with: replacement))
    }

    func write(_ text: String) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
