import Foundation

/// The files a spec generates, split by concept, and each concept into ``fileCount`` files.
///
/// One file per spec would be simplest, but the compiler builds a module's files in parallel,
/// in batches of equal file counts, and a single file of a large spec compiles on one core:
/// the 500-endpoint synthetic spec took 55 s in one file, and in three (one per part) 42 s on
/// two cores, because its models alone were half the work; with the models in three files and
/// the tables in two, 29 s. Which file a declaration goes to is `CodeGenerator.spread`'s
/// business. The split is fixed rather than sized by the spec because a
/// build-tool plugin must name its outputs before the generator runs; the plugin repeats these
/// names and counts, so keep them in step with `SelfDBCodegenPlugin`.
public enum GeneratedPart: String, CaseIterable, Sendable {
    /// Models and enums.
    case models
    /// The client's endpoint functions.
    case client
    /// Table-model row types, column sets and query builders.
    case tables

    /// How many files the part's declarations are spread over, in proportion to what each part
    /// costs the compiler: models (a `Codable`, `Hashable` struct per model) the most, the
    /// client (one function per endpoint) the least.
    public var fileCount: Int {
        switch self {
        case .models: 3
        case .client: 1
        case .tables: 2
        }
    }

    /// `Spec/selfdb.yaml` → `selfdb.models.generated.swift` for the first file of a part,
    /// `selfdb.models.2.generated.swift` for the second. The suffix keeps generated files from
    /// clashing with a hand-written `SelfDB.swift` in the same module.
    public func fileName(forSpecAt path: String, file: Int = 1) -> String {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return file == 1 ? "\(base).\(rawValue).generated.swift" : "\(base).\(rawValue).\(file).generated.swift"
    }

    /// The names of all the part's files for the spec at `path`, first to last.
    public func fileNames(forSpecAt path: String) -> [String] {
        (1...fileCount).map { fileName(forSpecAt: path, file: $0) }
    }

    /// What an empty file of this part says the spec lacks.
    var noun: String {
        switch self {
        case .models: "models"
        case .client: "endpoints"
        case .tables: "tables"
        }
    }
}
