import Foundation

/// A test on one property's value, for `TableQuery.where`.
public struct Condition<Value>: Sendable {
    /// The comparison, for executors that translate filters (SQL, descriptions).
    public let comparison: Comparison
    /// The operand as JSON, when the comparison has one.
    public let operand: JSONValue?
    let test: @Sendable (Value) -> Bool

    init(_ comparison: Comparison, operand: JSONValue?, test: @escaping @Sendable (Value) -> Bool) {
        self.comparison = comparison
        self.operand = operand
        self.test = test
    }

    func erased<Row>(_ keyPath: KeyPath<Row, Value> & Sendable) -> ErasedCondition<Row> {
        let test = self.test
        return ErasedCondition(comparison: comparison, operand: operand) { row in test(row[keyPath: keyPath]) }
    }
}

/// The comparisons a condition can make.
public enum Comparison: String, Sendable, Hashable {
    /// `==`.
    case equals
    /// `!=`.
    case notEquals
    /// `<`.
    case lessThan
    /// `<=`.
    case lessThanOrEqual
    /// `>`.
    case greaterThan
    /// `>=`.
    case greaterThanOrEqual
    /// The value is null.
    case isNull
    /// The value is not null.
    case isNotNull
    /// The text contains the operand, ignoring case.
    case contains
    /// The text starts with the operand.
    case hasPrefix
}

/// A filter on a row: the column it reads and its test.
public struct RowFilter<Row: TableModel>: Sendable {
    /// The column; `nil` if the key path was not a stored column (rejected by `validate()`).
    public let column: Row.Column?
    /// The test.
    public let condition: ErasedCondition<Row>
}

/// A condition bound to a row property.
public struct ErasedCondition<Row>: Sendable {
    /// The comparison.
    public let comparison: Comparison
    /// Its operand as JSON.
    public let operand: JSONValue?
    let test: @Sendable (Row) -> Bool
}

extension Condition where Value: Equatable & Sendable & Encodable {
    /// Equal to `value`.
    public static func equals(_ value: Value) -> Self {
        Self(.equals, operand: JSONValue(encoding: value)) { $0 == value }
    }

    /// Not equal to `value`.
    public static func notEquals(_ value: Value) -> Self {
        Self(.notEquals, operand: JSONValue(encoding: value)) { $0 != value }
    }
}

extension Condition where Value: Comparable & Sendable & Encodable {
    /// Less than `value`.
    public static func lessThan(_ value: Value) -> Self { Self(.lessThan, operand: JSONValue(encoding: value)) { $0 < value } }
    /// At most `value`.
    public static func lessThanOrEqual(_ value: Value) -> Self { Self(.lessThanOrEqual, operand: JSONValue(encoding: value)) { $0 <= value } }
    /// More than `value`.
    public static func greaterThan(_ value: Value) -> Self { Self(.greaterThan, operand: JSONValue(encoding: value)) { $0 > value } }
    /// At least `value`.
    public static func greaterThanOrEqual(_ value: Value) -> Self { Self(.greaterThanOrEqual, operand: JSONValue(encoding: value)) { $0 >= value } }
}

/// Conditions on nullable columns: a NULL never passes an ordering comparison, as in SQL.
extension Condition {
    /// NULL.
    public static func isNull<Wrapped>() -> Self where Value == Wrapped? {
        Self(.isNull, operand: nil) { $0 == nil }
    }

    /// Not NULL.
    public static func isNotNull<Wrapped>() -> Self where Value == Wrapped? {
        Self(.isNotNull, operand: nil) { $0 != nil }
    }

    /// Less than `value` (NULL never is).
    public static func lessThan<Wrapped: Comparable & Sendable & Encodable>(_ value: Wrapped) -> Self where Value == Wrapped? {
        Self(.lessThan, operand: JSONValue(encoding: value)) { $0.map { $0 < value } ?? false }
    }

    /// More than `value` (NULL never is).
    public static func greaterThan<Wrapped: Comparable & Sendable & Encodable>(_ value: Wrapped) -> Self where Value == Wrapped? {
        Self(.greaterThan, operand: JSONValue(encoding: value)) { $0.map { $0 > value } ?? false }
    }
}

extension Condition where Value == String {
    /// Contains `text`, ignoring case.
    public static func contains(_ text: String) -> Self {
        Self(.contains, operand: .string(text)) { $0.range(of: text, options: .caseInsensitive) != nil }
    }

    /// Starts with `prefix`.
    public static func hasPrefix(_ prefix: String) -> Self {
        Self(.hasPrefix, operand: .string(prefix)) { $0.hasPrefix(prefix) }
    }
}

extension Condition where Value == String? {
    /// Contains `text`, ignoring case (NULL never does).
    public static func contains(_ text: String) -> Self {
        Self(.contains, operand: .string(text)) { $0?.range(of: text, options: .caseInsensitive) != nil }
    }
}

extension JSONValue {
    /// The JSON form of an encodable value (dates as ISO 8601), or `nil` if it has none.
    init?(encoding value: some Encodable) {
        guard let data = try? JSONCoding.makeEncoder().encode(value),
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return nil }
        self = decoded
    }
}
