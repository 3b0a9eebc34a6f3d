import Foundation
import SelfDBRuntime

extension SelfDB.Tables {
    /// Creates the table of a generated table model from its schema, enabling realtime when
    /// the model says so. Creating a table that exists returns it (SelfDB's own rule).
    @discardableResult
    public func create<Row: TableModel>(from type: Row.Type, description: String? = nil) async throws -> TableRead {
        var schema: TableSchema = [:]
        for column in Row.columns {
            schema[column.name] = ColumnSchema(type: column.type.rawValue, nullable: column.isNullable, default: column.defaultValue)
        }
        var table = try await create(payload: TableCreate(name: Row.tableName, tableSchema: schema, public: Row.isPublic, description: description))
        if Row.isRealtimeEnabled, !table.realtimeEnabled {
            table = try await update(table.id, payload: TableUpdate(realtimeEnabled: true))
        }
        await api.resolvedIDs.forget(Row.tableName)
        return table
    }
}

extension SelfDB.Tables.Data {
    /// The id of `Row`'s table, looked up by name once per client.
    func tableId<Row: TableModel>(of type: Row.Type) async throws -> UUID {
        let tables = SelfDB.Tables(api: api)
        return try await api.resolvedIDs.id(for: Row.tableName) {
            let candidates = try await tables.list(limit: 100, search: Row.tableName)
            guard let table = candidates.first(where: { $0.name == Row.tableName }) else {
                throw SelfDBError.notFound("no table named '\(Row.tableName)'; create it with tables.create(from: \(Row.self).self)")
            }
            return table.id
        }
    }

    /// Inserts a typed row and returns it as stored.
    @discardableResult
    public func insert<Row: TableModel>(_ row: Row) async throws -> Row {
        let response = try await insert(try await tableId(of: Row.self), data: try RowCoding.encode(row))
        return try RowCoding.decode(response.data)
    }

    /// Replaces a typed row's columns (matched on its primary key) and returns it as stored.
    @discardableResult
    public func update<Row: TableModel>(_ row: Row) async throws -> Row {
        var values = try RowCoding.encode(row)
        let key = Row.primaryKey.rawValue
        guard let id = values.removeValue(forKey: key), let rowId = Self.pathValue(id) else {
            throw SelfDBError.invalidArgument("the row has no value in its primary key column '\(key)'")
        }
        let response = try await updateRow(try await tableId(of: Row.self), rowId: rowId, updates: values, idColumn: key)
        return try RowCoding.decode(response.data)
    }

    /// Deletes a typed row (matched on its primary key).
    public func delete<Row: TableModel>(_ row: Row) async throws {
        let values = try RowCoding.encode(row)
        let key = Row.primaryKey.rawValue
        guard let id = values[key], let rowId = Self.pathValue(id) else {
            throw SelfDBError.invalidArgument("the row has no value in its primary key column '\(key)'")
        }
        _ = try await deleteRow(try await tableId(of: Row.self), rowId: rowId, idColumn: key)
    }

    static func pathValue(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): String(number)
        default: nil
        }
    }
}
