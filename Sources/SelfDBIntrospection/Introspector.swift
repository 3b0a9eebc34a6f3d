import Foundation
import SelfDBSpec

/// Table specs from a running SelfDB: read its tables (``TableSource``), turn them into the
/// spec language (``TableSpecTranslator``), and write a new spec (``TableSpecRenderer``) or
/// take them into an existing one (``SpecFileMerger``).
public enum Introspector {
    /// What a run produced: the spec's text, and a line per change.
    public struct Outcome: Sendable {
        /// The spec file's whole text.
        public var text: String
        /// A line per table added, updated or kept without a server table.
        public var changes: [String]
    }

    /// The spec for the server's tables (`names`, or all it serves): `existing` (a spec's text
    /// and its path) with them taken in, or a new spec.
    public static func run(_ source: TableSource, tables names: [String] = [], existing: (text: String, file: String)? = nil) async throws -> Outcome {
        let tables = try await source.tables(named: names)
        return try outcome(for: tables, source: source.baseURL.absoluteString, existing: existing)
    }

    /// The same from tables already read (tests, fixtures).
    public static func outcome(for tables: [ServerTable], source: String, existing: (text: String, file: String)?) throws -> Outcome {
        if let existing {
            let merged = try SpecFileMerger.merge(tables, into: existing.text, file: existing.file)
            return Outcome(text: merged.text, changes: merged.changes)
        }
        let translated = TableSpecTranslator.translate(tables)
        return Outcome(
            text: TableSpecRenderer.file(translated, source: source),
            changes: translated.map { "added table '\($0.tableName)' as \($0.modelName)" }
        )
    }
}
