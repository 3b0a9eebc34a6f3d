import Foundation

/// One result row: values by position or column name, converted to the type the context
/// asks for (see `SQLiteConvertible`).
///
/// ```swift
/// let name: String = row["name"]!
/// let height = row["height"] as Double?
/// let id: Int64 = row[0]!
/// ```
///
/// A row is a value: it stays valid after the statement moves on.
public struct Row: Sendable, Hashable {
    /// The values, in column order.
    public let values: [SQLiteValue]
    /// The column names, in order.
    public var columnNames: [String] { columns.names }

    let columns: ColumnIndex

    init(values: [SQLiteValue], columns: ColumnIndex) {
        self.values = values
        self.columns = columns
    }

    /// Column `index` (0-based) as `T`; nil when NULL, not convertible exactly, or out of range.
    @inlinable
    public subscript<T: SQLiteConvertible>(_ index: Int) -> T? {
        guard values.indices.contains(index) else { return nil }
        return T(sqliteValue: values[index])
    }

    /// Column `name` as `T`; nil when NULL, not convertible exactly, or no such column.
    /// Names match case-insensitively, as in SQL; the first column of that name wins.
    public subscript<T: SQLiteConvertible>(_ name: String) -> T? {
        guard let index = columns.index(of: name) else { return nil }
        return T(sqliteValue: values[index])
    }

    /// The stored value of column `index`; nil when out of range.
    public func value(at index: Int) -> SQLiteValue? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// Whether column `index` is NULL (false when out of range).
    public func isNull(_ index: Int) -> Bool {
        value(at: index) == .null
    }

    /// Whether column `name` is NULL (false when there is no such column).
    public func isNull(_ name: String) -> Bool {
        columns.index(of: name).map { values[$0] == .null } ?? false
    }

    /// Whether the row has a column called `name`.
    public func hasColumn(_ name: String) -> Bool {
        columns.index(of: name) != nil
    }
}

/// Column names of a statement and a case-insensitive lookup, shared by all its rows.
final class ColumnIndex: Sendable, Hashable {
    let names: [String]
    private let positions: [String: Int]

    init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name.lowercased()] == nil {
            positions[name.lowercased()] = index
        }
        self.positions = positions
    }

    func index(of name: String) -> Int? {
        positions[name] ?? positions[name.lowercased()]
    }

    static func == (lhs: ColumnIndex, rhs: ColumnIndex) -> Bool { lhs.names == rhs.names }
    func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
