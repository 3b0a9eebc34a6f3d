import Foundation

/// The files a spec generates, split by concept.
///
/// One file per spec would be simplest, but the compiler builds a module's files in parallel
/// and a single file of a large spec compiles on one core (the 500-endpoint synthetic spec took
/// 55 s in one file, 35 s in three on two cores). The split is fixed rather than sized by the
/// spec because a build-tool plugin must name its outputs before the generator runs; the
/// plugin repeats these names, so keep them in step with `SelfDBCodegenPlugin`.
public enum GeneratedPart: String, CaseIterable, Sendable {
    /// Models and enums.
    case models
    /// The client's endpoint functions.
    case client
    /// Table-model row types, column sets and query builders.
    case tables

    /// `Spec/selfdb.yaml` → `selfdb.models.generated.swift`. The suffix keeps generated files
    /// from clashing with a hand-written `SelfDB.swift` in the same module.
    public func fileName(forSpecAt path: String) -> String {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return "\(base).\(rawValue).generated.swift"
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
