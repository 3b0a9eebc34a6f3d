import Foundation

/// Writes generated files only when their content changed, so an unchanged file keeps its
/// modification date and the compiler does not rebuild what depends on it.
public enum OutputWriter {
    /// What happened to a file.
    public enum Outcome: Equatable, Sendable {
        case written
        case unchanged
    }

    /// Writes `file` into `directory` unless it already holds the same text.
    @discardableResult
    public static func write(_ file: GeneratedFile, to directory: URL) throws -> Outcome {
        let url = directory.appendingPathComponent(file.name)
        let data = Data(file.contents.utf8)
        if let existing = FileManager.default.contents(atPath: url.path), existing == data {
            return .unchanged
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
        return .written
    }
}
