import Foundation

/// Helper processes the crash tests start and kill (built by SwiftPM next to the test bundle).
public enum TestExecutables {
    /// The executable `name` from the build folder of the running tests, if it was built.
    public static func url(named name: String) -> URL? {
        let starts = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}
