import Foundation
import SelfDBSpec

/// Server tables → tables as the spec language writes them: types mapped
/// (``ColumnTypeMapping``), model names in Swift's conventions (`todo_items` → `TodoItem`),
/// names that would clash resolved as the validator demands, a primary key chosen.
public enum TableSpecTranslator {
    /// The tables, in the order given; `taken` holds model names already used (by a spec
    /// being updated), which new names avoid.
    public static func translate(_ tables: [ServerTable], avoiding taken: Set<String> = []) -> [IntrospectedTable] {
        var used = taken
        return tables.map { table in
            let name = modelName(for: table.name, avoiding: used)
            used.insert(name)
            return translate(table, modelName: name)
        }
    }

    static func translate(_ table: ServerTable, modelName: String) -> IntrospectedTable {
        var notes: [String] = []
        let names = table.columns.map(\.name)
        // SelfDB keeps no primary key; a uuid column named `id` is what it fills on insert.
        let primaryKey: String
        if names.contains("id") {
            primaryKey = "id"
        } else {
            primaryKey = names.first { $0.hasSuffix("_id") } ?? names.first ?? "id"
            notes.append("SelfDB keeps no primary key and this table has no 'id': '\(primaryKey)' was chosen; check it")
        }
        var swiftNames: Set<String> = []
        let columns = table.columns.map { name, column -> IntrospectedColumn in
            let (type, typeNote) = ColumnTypeMapping.columnType(for: column.type)
            let (defaultValue, defaultNote) = literal(column.defaultValue, for: type)
            var derived = NameConversion.swiftIdentifier(fromWireName: name)
            var swiftName: String?
            if swiftNames.contains(derived) {
                var number = 2
                while swiftNames.contains("\(derived)\(number)") { number += 1 }
                derived = "\(derived)\(number)"
                swiftName = derived
            }
            swiftNames.insert(derived)
            let note = [typeNote, defaultNote].compactMap { $0 }.joined(separator: "; ")
            return IntrospectedColumn(
                name: name,
                type: type,
                nullable: column.nullable,
                defaultValue: defaultValue,
                swiftName: swiftName,
                description: nil,
                note: note.isEmpty ? nil : note
            )
        }
        return IntrospectedTable(
            modelName: modelName,
            tableName: table.name,
            description: table.description.flatMap { $0.isEmpty ? nil : $0 },
            isPublic: table.isPublic,
            realtime: table.realtimeEnabled,
            primaryKey: primaryKey,
            columns: columns,
            notes: notes
        )
    }

    /// A stored default as a spec literal, when the column's Swift type can hold it; otherwise
    /// a note (a SQL expression such as `now()`, an object).
    static func literal(_ value: ServerDefault?, for type: ColumnType) -> (LiteralValue?, String?) {
        guard let value else { return (nil, nil) }
        switch (value, type.swiftType) {
        case (.bool(let flag), .bool): return (.bool(flag), nil)
        case (.int(let number), .int), (.int(let number), .int64): return (.int(number), nil)
        case (.int(let number), .double): return (.int(number), nil)
        case (.double(let number), .double): return (.double(number), nil)
        case (.string(let text), .string): return (.string(text), nil)
        case (.string(let text), _): return (nil, "server default '\(text)' is not a value of this type; not written")
        case (.structured, _): return (nil, "server default is a JSON array or object; not written")
        default: return (nil, "server default does not fit the type; not written")
        }
    }

    /// The Swift row type for a table: its name singular, in upper camel case; a name the
    /// validator refuses (a Swift or Foundation type, a spec builtin) or one already taken
    /// gets `Row`, then a number.
    public static func modelName(for tableName: String, avoiding taken: Set<String>) -> String {
        var words = NameConversion.words(tableName)
        if let last = words.last { words[words.count - 1] = singular(last) }
        var base = NameConversion.upperCamelCase(words.joined(separator: "_"))
        if base.isEmpty || !(base.unicodeScalars.first.map { CharacterSet.letters.contains($0) || $0 == "_" } ?? false) {
            base = "Table" + base
        }
        if BuiltinType(rawValue: base) != nil || SwiftNames.reservedTypeNames.contains(base) || SwiftNames.standardLibraryTypeNames.contains(base)
            || SwiftNames.keywords.contains(base)
        {
            base += "Row"
        }
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)\(number)"
            number += 1
        }
        return name
    }

    /// English plurals of table names: `items` → `item`, `categories` → `category`,
    /// `boxes` → `box`; `status`, `class` and `news` stay.
    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        guard lower.count > 3, lower.hasSuffix("s"), !lower.hasSuffix("ss"), !lower.hasSuffix("us"), !lower.hasSuffix("is"), lower != "news" else {
            return word
        }
        if lower.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        for suffix in ["ches", "shes", "sses", "xes", "zes"] where lower.hasSuffix(suffix) { return String(word.dropLast(2)) }
        return String(word.dropLast())
    }
}
