import SelfDBSpec

/// Emits a table model: the row struct, its `Column` set, its schema and the key-path map
/// that lets `TableQuery.where(\.done, ...)` name columns without strings.
struct TableTranslator {
    let spec: Spec
    let types: TypeMapper
    var access: String { spec.access.rawValue }

    func emit(_ table: TableDeclaration, into writer: inout SwiftWriter) {
        let name = table.name.value
        writer.documentation(table.description ?? "A row of the `\(table.tableName.value)` table.")
        // `Identifiable` when the key is `id`, for SwiftUI lists and `CacheableModel`; another
        // column named `id` would not identify the row.
        let key = primaryKeyColumn(table)
        let identifiable = key.map { SwiftNamesRendering.member($0.swiftName.value) == "id" } ?? false
        writer.block("\(access) struct \(name): TableModel\(identifiable ? ", Identifiable" : "")") { writer in
            for column in table.columns {
                writer.documentation(column.description)
                writer.line("\(access) var \(SwiftNamesRendering.member(column.swiftName.value)): \(swiftType(column, in: table))")
            }
            writer.line()
            emitInitializer(table, into: &writer)
            writer.line()
            writer.line("/// The columns of `\(table.tableName.value)`; raw values are the SQL names.")
            writer.block("\(access) enum Column: String, TableModelColumn") { writer in
                for column in table.columns {
                    let member = SwiftNamesRendering.member(column.swiftName.value)
                    writer.line(column.swiftName.value == column.name.value ? "case \(member)" : "case \(member) = \(column.name.value.swiftLiteral)")
                }
            }
            writer.line()
            writer.line("typealias CodingKeys = Column")
            writer.line()
            writer.line("\(access) static let tableName = \(table.tableName.value.swiftLiteral)")
            if let key {
                let member = SwiftNamesRendering.member(key.swiftName.value)
                writer.line("\(access) static let primaryKey: Column = .\(member)")
                writer.line("\(access) var primaryKeyValue: \(swiftType(key, in: table)) { \(member) }")
            }
            writer.line("\(access) static let isRealtimeEnabled = \(table.realtime)")
            writer.line("\(access) static let isPublic = \(table.isPublic)")
            writer.line("\(access) static let columns: [TableColumnDefinition<Column>] = [")
            writer.indented { writer in
                for column in table.columns {
                    writer.line(definition(column, in: table) + ",")
                }
            }
            writer.line("]")
            writer.line()
            writer.block("\(access) static func column(for keyPath: PartialKeyPath<\(name)>) -> Column?") { writer in
                writer.switchBlock("keyPath") { writer in
                    for column in table.columns {
                        let member = SwiftNamesRendering.member(column.swiftName.value)
                        writer.line("case \\\(name).\(member): .\(member)")
                    }
                    writer.line("default: nil")
                }
            }
        }
    }

    private func primaryKeyColumn(_ table: TableDeclaration) -> ColumnDeclaration? {
        table.columns.first { $0.name.value == table.primaryKey?.value }
    }

    private func isNullable(_ column: ColumnDeclaration, in table: TableDeclaration) -> Bool {
        column.nullable && column.name.value != table.primaryKey?.value
    }

    private func swiftType(_ column: ColumnDeclaration, in table: TableDeclaration) -> String {
        let base = types.swiftType(.named((column.type?.value.swiftType ?? .json).rawValue))
        return isNullable(column, in: table) ? base + "?" : base
    }

    private func emitInitializer(_ table: TableDeclaration, into writer: inout SwiftWriter) {
        writer.line("/// Creates a row.")
        let parameters = table.columns.map { column -> String in
            let type = swiftType(column, in: table)
            let typeReference: TypeReference = .named((column.type?.value.swiftType ?? .json).rawValue)
            let defaultClause: String
            if let value = column.defaultValue {
                defaultClause = " = " + types.literal(value.value, for: isNullable(column, in: table) ? .optional(typeReference) : typeReference)
            } else {
                defaultClause = isNullable(column, in: table) ? " = nil" : ""
            }
            return "\(SwiftNamesRendering.member(column.swiftName.value)): \(type)\(defaultClause)"
        }
        writer.block("\(access) init", parameters: parameters) { writer in
            for column in table.columns {
                let member = SwiftNamesRendering.member(column.swiftName.value)
                writer.line("self.\(member) = \(member)")
            }
        }
    }

    private func definition(_ column: ColumnDeclaration, in table: TableDeclaration) -> String {
        let member = SwiftNamesRendering.member(column.swiftName.value)
        let type = column.type?.value.rawValue ?? "json"
        var text = "TableColumnDefinition(.\(member), .\(type), nullable: \(isNullable(column, in: table))"
        if let value = column.defaultValue {
            text += ", default: " + types.literal(value.value, for: .named(BuiltinType.json.rawValue))
        }
        return text + ")"
    }
}
