import Foundation
import SelfDBSpec

/// Takes a server's tables into an existing spec file, changing only what the server changed.
///
/// The file is edited as text, a table entry at a time, so that what the user wrote stays as
/// written: a table the server still has as the spec says is kept byte for byte (comments
/// included); a table that drifted is written again from the server, with what the user added
/// kept (its model name, description, column `swift:` names and descriptions, `sync:` and any
/// other key, as written), its columns in the spec's order, new ones after; a table the server
/// does not have is kept (a spec may declare a table before it is created), and said; a new
/// server table is added at the end of `tables:`. Nothing changed: the same bytes.
public enum SpecFileMerger {
    /// The merged text, and a line per change for the user.
    public struct Result: Sendable {
        /// The spec file's whole text, merged.
        public var text: String
        /// A line per table added, updated or kept without a server table.
        public var changes: [String]
    }

    /// Why a spec cannot be merged into: it does not read (merging would lose it).
    public struct UnreadableSpec: Error, CustomStringConvertible, Sendable {
        /// Why the spec does not read.
        public var diagnostics: [Diagnostic]
        /// The reason, then the spec's diagnostics, a line each.
        public var description: String {
            "the spec does not read; fix it first:\n" + diagnostics.map(\.description).joined(separator: "\n")
        }
    }

    /// Keys of a table entry the renderer writes; any other key is the user's, kept as written.
    static let renderedKeys: Set<String> = ["table", "description", "public", "realtime", "primaryKey", "columns"]

    /// `text` (the spec at `file`) with `server`'s tables taken in; throws ``UnreadableSpec`` for a spec that does not read.
    public static func merge(_ server: [ServerTable], into text: String, file: String) throws -> Result {
        let read = YAMLReader.read(text, file: file)
        let loaded = SpecLoader.load(text, file: file)
        guard let root = read.root, case .mapping(let rootMapping) = root, let spec = loaded.spec, !read.diagnostics.hasErrors else {
            throw UnreadableSpec(diagnostics: read.diagnostics + loaded.diagnostics)
        }
        var lines = text.components(separatedBy: "\n")
        let endsWithNewline = lines.last == ""
        if endsWithNewline { lines.removeLast() }
        var changes: [String] = []
        let byName = Dictionary(server.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let declared = Set(spec.tables.map(\.tableName.value))
        let newTables = TableSpecTranslator.translate(
            server.filter { !declared.contains($0.name) },
            avoiding: Set(spec.tables.map(\.name.value) + spec.models.map(\.name.value))
        )
        // Each new table's entry after a blank line; said after the tables already there.
        let added = newTables.flatMap { [""] + TableSpecRenderer.entry($0) }
        let addedChanges = newTables.map { "added table '\($0.tableName)' as \($0.modelName)" }

        guard let tablesIndex = rootMapping.entries.firstIndex(where: { $0.key.text == "tables" }),
            case .mapping(let tablesMapping) = rootMapping.entries[tablesIndex].value
        else {
            // No tables yet: a `tables:` section at the end.
            var output = lines
            if output.last.map({ !$0.isEmpty }) ?? false { output.append("") }
            output.append("tables:")
            output += added.dropFirst()
            return Result(text: output.joined(separator: "\n") + "\n", changes: addedChanges)
        }
        // Where the section ends: the next top-level key, or the end of the file.
        let sectionEnd = rootMapping.entries.dropFirst(tablesIndex + 1).first.map { $0.key.location.line - 1 } ?? lines.count
        let starts = tablesMapping.entries.map { $0.key.location.line - 1 }
        var output = Array(lines[0..<(starts.first ?? sectionEnd)])
        for (index, entry) in tablesMapping.entries.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1] : sectionEnd
            let slice = Array(lines[starts[index]..<end])
            // An entry the loader did not take as a table (already diagnosed) stays as written.
            guard let declaration = spec.tables.first(where: { $0.name.value == entry.key.text }) else {
                output += slice
                continue
            }
            guard let table = byName[declaration.tableName.value] else {
                changes.append("kept \(entry.key.text): the server has no table '\(declaration.tableName.value)'")
                output += slice
                continue
            }
            let merged = mergedTable(table, declaration: declaration)
            if !drifted(merged, from: declaration) {
                output += slice
                continue
            }
            changes.append("updated \(declaration.name.value) (table '\(table.name)') from the server")
            // The slice's own trailing blank and comment lines belong to what follows.
            var contentEnd = slice.count
            while contentEnd > 1, isBlankOrComment(slice[contentEnd - 1]) { contentEnd -= 1 }
            let kept = keptLines(of: entry, slice: Array(slice[0..<contentEnd]), firstLine: starts[index])
            output += TableSpecRenderer.entry(merged, keptLines: kept)
            output += slice[contentEnd...]
        }
        if !newTables.isEmpty {
            // After the last entry's own lines, before the blank lines and comments that lead
            // to the next section.
            var insertAt = output.count
            while insertAt > 0, isBlankOrComment(output[insertAt - 1]) { insertAt -= 1 }
            output.insert(contentsOf: added, at: insertAt)
        }
        output += lines[sectionEnd...]
        return Result(text: output.joined(separator: "\n") + (endsWithNewline ? "\n" : ""), changes: changes + addedChanges)
    }

    /// The server's table with what the spec adds to it.
    static func mergedTable(_ table: ServerTable, declaration: TableDeclaration) -> IntrospectedTable {
        var merged = TableSpecTranslator.translate(table, modelName: declaration.name.value)
        if let description = declaration.description { merged.description = description }
        if let key = declaration.primaryKey?.value, table.schema[key] != nil {
            merged.primaryKey = key
            merged.notes = []
        }
        let declaredOrder = declaration.columns.map(\.name.value)
        merged.columns.sort { lhs, rhs in
            switch (declaredOrder.firstIndex(of: lhs.name), declaredOrder.firstIndex(of: rhs.name)) {
            case (let left?, let right?): left < right
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): false
            }
        }
        for index in merged.columns.indices {
            guard let column = declaration.columns.first(where: { $0.name.value == merged.columns[index].name }) else { continue }
            if column.swiftName.value != NameConversion.swiftIdentifier(fromWireName: column.name.value) {
                merged.columns[index].swiftName = column.swiftName.value
            }
            merged.columns[index].description = column.description
            // The spec's own spelling of a type SelfDB treats as the same (`int`, `integer`).
            if let type = column.type?.value, ColumnTypeMapping.sameType(type, merged.columns[index].type) {
                merged.columns[index].type = type
            }
        }
        return merged
    }

    /// Whether the server says something the spec does not.
    static func drifted(_ merged: IntrospectedTable, from declaration: TableDeclaration) -> Bool {
        if merged.isPublic != declaration.isPublic || merged.realtime != declaration.realtime { return true }
        if merged.primaryKey != declaration.primaryKey?.value { return true }
        guard merged.columns.count == declaration.columns.count else { return true }
        for column in merged.columns {
            guard let declared = declaration.columns.first(where: { $0.name.value == column.name }), let type = declared.type?.value else { return true }
            let isKey = column.name == merged.primaryKey
            if !ColumnTypeMapping.sameType(type, column.type) || (!isKey && declared.nullable != column.nullable)
                || declared.defaultValue?.value != column.defaultValue
            {
                return true
            }
        }
        return false
    }

    /// The lines of the entry's keys that the renderer does not write (`sync:` and the like),
    /// each with the lines under it.
    static func keptLines(of entry: SpecNode.Entry, slice: [String], firstLine: Int) -> [String] {
        guard case .mapping(let mapping) = entry.value else { return [] }
        let starts = mapping.entries.map { $0.key.location.line - 1 - firstLine }
        var kept: [String] = []
        for (index, key) in mapping.entries.enumerated() where !renderedKeys.contains(key.key.text) {
            let start = starts[index]
            let end = index + 1 < starts.count ? starts[index + 1] : slice.count
            guard start >= 0, start < end, end <= slice.count else { continue }
            kept += slice[start..<end]
        }
        return kept
    }

    static func isBlankOrComment(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }
}
