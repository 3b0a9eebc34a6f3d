import GRDB

/// A synced table as the client stores it, read from the server's schema and checked: the
/// names the triggers, the applier and the pusher need, and each column's logical type.
struct LocalTable: Sendable, Equatable {
    struct Column: Sendable, Equatable {
        var name: String
        var logicalType: LogicalType
        /// A literal SQLite default (`0`, `'open'`, `NULL`), when the server calls it portable.
        var defaultSQL: String?
        /// Whether the server accepts NULL in it (local columns are nullable whatever it says).
        var nullable = true

        /// The SQLite type affinity the contract gives each logical type.
        var affinity: String {
            switch logicalType {
            case .string, .datetime, .date, .time, .json: "TEXT"
            case .int, .int64, .boolean: "INTEGER"
            case .float: "REAL"
            case .bytes: "BLOB"
            case .unknown: ""
            }
        }
    }

    var name: String
    var primaryKey: String
    var updatedAt: String
    var deletedAt: String
    var parentTable: String?
    var parentKey: String?
    var dependencies: [String]
    var isReadOnly: Bool
    var columns: [Column]

    /// Reads a server table, or says what is wrong with it.
    init(_ table: SyncTable) throws(SynchroError) {
        func invalid(_ message: String) -> SynchroError {
            .invalidResponse(message: "schema table '\(table.tableName)': \(message)")
        }
        guard Self.isUsableName(table.tableName), !table.tableName.hasPrefix("_synchro_") else {
            throw invalid("not a usable table name")
        }
        let columns = try (table.columns ?? []).map { column throws(SynchroError) -> Column in
            guard Self.isUsableName(column.name) else { throw invalid("column '\(column.name)' is not a usable name") }
            let portable = column.defaultKind == .portable ? column.sqliteDefaultSql.flatMap(Self.literalDefault) : nil
            return Column(name: column.name, logicalType: column.logicalType, defaultSQL: portable, nullable: column.nullable)
        }
        guard !columns.isEmpty else { throw invalid("no columns") }
        let names = Set(columns.map(\.name))
        guard names.count == columns.count else { throw invalid("duplicate column names") }
        let key = table.primaryKey?.first ?? (table.columns ?? []).first { $0.isPrimaryKey }?.name ?? "id"
        let updatedAt = table.updatedAtColumn ?? "updated_at"
        let deletedAt = table.deletedAtColumn ?? "deleted_at"
        for (role, column) in [("primary key", key), ("updated_at column", updatedAt), ("deleted_at column", deletedAt)] {
            guard names.contains(column) else { throw invalid("its \(role) '\(column)' is not one of its columns") }
        }
        if let parentKey = table.parentFkCol, !names.contains(parentKey) {
            throw invalid("its parent key '\(parentKey)' is not one of its columns")
        }
        self.name = table.tableName
        self.primaryKey = key
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.parentTable = table.parentTable
        self.parentKey = table.parentFkCol
        self.dependencies = table.dependencies ?? table.parentTable.map { [$0] } ?? []
        self.isReadOnly = table.pushPolicy == .disabled
        self.columns = columns
    }

    func column(_ name: String) -> Column? {
        columns.first { $0.name == name }
    }

    /// Any text SQLite can quote; empty names, NUL and double quotes are refused (GRDB's
    /// `quotedDatabaseIdentifier` does not double a `"`, so a server could otherwise put SQL
    /// into the local DDL through a name).
    static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("\0") && !name.contains("\"") && name.utf8.count <= 128
    }

    /// The default when it is a plain literal: a number, a quoted string, NULL, TRUE or
    /// FALSE. Anything else coming from a server is not put into local DDL.
    static func literalDefault(_ sql: String) -> String? {
        let text = sql.trimmingCharacters(in: .whitespaces)
        switch text.uppercased() {
        case "NULL", "TRUE", "FALSE": return text.uppercased()
        default: break
        }
        if Double(text) != nil, text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }) { return text }
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            let inner = text.dropFirst().dropLast()
            // Quotes inside must come in pairs ('it''s').
            if inner.replacingOccurrences(of: "''", with: "").contains("'") == false { return text }
        }
        return nil
    }
}

extension String {
    /// The text as an SQL string literal.
    var quotedLiteral: String { "'" + replacingOccurrences(of: "'", with: "''") + "'" }
}
