extension SpecValidator {
    /// Table names SelfDB refuses.
    static let reservedTableNames: Set<String> = ["users", "user", "table", "select", "insert", "update", "delete", "from", "where"]

    mutating func checkTable(_ table: TableDeclaration) {
        let tableName = table.tableName
        if !isSQLName(tableName.value) {
            error("table name '\(tableName.value)' must be letters, digits and '_' and start with a letter or '_'", at: tableName.location)
        } else if Self.reservedTableNames.contains(tableName.value.lowercased()) {
            error("table name '\(tableName.value)' is reserved by SelfDB; choose another 'table:' name", at: tableName.location)
        }
        if table.columns.isEmpty {
            error("table model '\(table.name.value)' has no columns; list them under 'columns:'", at: table.name.location)
        }
        var swiftNames: [String: SourceLocation] = [:]
        var columnNames: [String: SourceLocation] = [:]
        for column in table.columns {
            if !isSQLName(column.name.value) {
                error("column name '\(column.name.value)' must be letters, digits and '_' and start with a letter or '_'", at: column.name.location)
            }
            if let first = columnNames[column.name.value.lowercased()] {
                error("duplicate column '\(column.name.value)' (SQL names ignore case); first declared at line \(first.line)", at: column.name.location)
            } else {
                columnNames[column.name.value.lowercased()] = column.name.location
            }
            checkIdentifier(column.swiftName, "property name", allowKeywords: true)
            if let first = swiftNames[column.swiftName.value] {
                error("column '\(column.name.value)' has the Swift name '\(column.swiftName.value)' of the column at line \(first.line); set 'swift:' on one", at: column.name.location)
            } else {
                swiftNames[column.swiftName.value] = column.name.location
            }
            if let defaultValue = column.defaultValue, let type = column.type {
                let isKey = column.name.value == table.primaryKey?.value
                let swiftType: TypeReference = column.nullable && !isKey ? .optional(.named(type.value.swiftType.rawValue)) : .named(type.value.swiftType.rawValue)
                checkDefault(defaultValue, for: swiftType, field: column.name.value)
            }
        }
        guard let primaryKey = table.primaryKey else {
            error("table model '\(table.name.value)' has no primary key; add 'primaryKey: <column>' (rows need an identity to be updated, deleted and cached)", at: table.name.location)
            return
        }
        guard let column = table.columns.first(where: { $0.name.value == primaryKey.value }) else {
            let hint = Suggestion.didYouMean(primaryKey.value, in: table.columns.map(\.name.value))
            error("primary key '\(primaryKey.value)' is not a column of '\(table.name.value)'\(hint)", at: primaryKey.location)
            return
        }
        if column.nullable, let location = column.nullableLocation {
            error("primary key column '\(column.name.value)' cannot be nullable", at: location)
        }
    }

    private func isSQLName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.count <= 63 && name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
