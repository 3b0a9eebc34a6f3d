import Foundation

/// The front end in one call: read, load and validate a spec file.
public enum SpecCompiler {
    /// A checked spec and its diagnostics, sorted by location.
    public struct Output: Sendable {
        /// The spec; present whenever the YAML could be read, even with errors.
        public var spec: Spec?
        /// Errors and warnings in file order.
        public var diagnostics: [Diagnostic]

        /// Whether the spec can be generated from.
        public var isValid: Bool { spec != nil && !diagnostics.hasErrors }
    }

    /// Loads and validates `text`, naming `file` in locations.
    public static func compile(_ text: String, file: String) -> Output {
        let loaded = SpecLoader.load(text, file: file)
        guard let spec = loaded.spec else {
            return Output(spec: nil, diagnostics: loaded.diagnostics.sortedByLocation())
        }
        // Validation runs even when loading found errors: the loader keeps what it could
        // read, so the user sees every problem in one pass.
        let diagnostics = loaded.diagnostics + SpecValidator.validate(spec)
        return Output(spec: spec, diagnostics: deduplicated(diagnostics).sortedByLocation())
    }

    /// Reads and compiles the file at `path`.
    public static func compile(contentsOf path: String, displayPath: String? = nil) -> Output {
        let shown = displayPath ?? path
        guard let data = FileManager.default.contents(atPath: path) else {
            return Output(spec: nil, diagnostics: [.error("cannot read the file", at: SourceLocation(file: shown, line: 1, column: 1))])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return Output(spec: nil, diagnostics: [.error("the file is not valid UTF-8", at: SourceLocation(file: shown, line: 1, column: 1))])
        }
        return compile(text, file: shown)
    }

    private static func deduplicated(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }
    }
}
