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

extension TestExecutables {
    /// The first output a helper writes to `pipe` (a blocking read, done on a GCD thread rather
    /// than the cooperative pool it would starve).
    public static func firstOutput(of pipe: Pipe) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self))
            }
        }
    }
}
