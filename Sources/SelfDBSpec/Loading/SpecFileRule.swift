import Foundation

/// Which files are specs, for the build-tool plugin, the command plugins and the CLI's
/// directory search alike.
///
/// A spec is a `.yaml`/`.yml` file with a top-level `spec:` key (`spec: 1`): so an app target's
/// other YAML — a bundled configuration, a fixture — sits beside its specs and is never fed to
/// the generator (in Xcode, where a target's inputs are all its files, above all). The key is
/// found by a line that starts with it,
/// which a YAML block scalar or nested mapping cannot produce (their lines are indented), so
/// the rule needs no YAML parser: the plugins, which cannot link one, compile this same file.
public enum SpecFileRule {
    /// The extensions a spec file may have.
    public static let extensions: Set<String> = ["yaml", "yml"]

    /// Whether `url` names a visible `.yaml`/`.yml` file (the first test, before reading it).
    public static func hasSpecName(_ url: URL) -> Bool {
        extensions.contains(url.pathExtension.lowercased()) && !url.lastPathComponent.hasPrefix(".")
    }

    /// Whether `text` has a top-level `spec:` key.
    public static func declaresSpec(_ text: String) -> Bool {
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            var rest = line.drop { $0 == "\u{FEFF}" }
            for key in ["spec", "\"spec\"", "'spec'"] where rest.hasPrefix(key) {
                rest = rest.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
                if rest.first == ":" {
                    let after = rest.dropFirst().first
                    if after == nil || after == " " || after == "\t" { return true }
                }
                break
            }
        }
        return false
    }

    /// Whether the file at `url` is a spec: a spec's name, and a top-level `spec:` key. A file
    /// that cannot be read is not skipped: it is handed on, so the generator reports why.
    public static func isSpec(_ url: URL) -> Bool {
        guard hasSpecName(url) else { return false }
        guard let data = FileManager.default.contents(atPath: url.path) else { return true }
        return declaresSpec(String(decoding: data, as: UTF8.self))
    }

    /// The lower-cased output stem of each spec (`Notes.yaml` → `notes`) that more than one of
    /// `specs` would write: on a case-insensitive disk (macOS, iOS) their generated files
    /// would overwrite each other, and in any case one module cannot hold both.
    public static func clashingStems(_ specs: [URL]) -> [(stem: String, specs: [URL])] {
        let groups = Dictionary(grouping: specs) { $0.deletingPathExtension().lastPathComponent.lowercased() }
        return groups.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sorted { $0.path < $1.path }) }
    }
}
