import Foundation

/// One `name=value` of a query string. A `nil` value means "leave it out", so optional
/// parameters can be listed unconditionally by generated code.
public struct QueryItem: Sendable, Hashable {
    /// The wire name.
    public var name: String
    /// The value as text, or `nil` to omit.
    public var value: String?

    /// An item from any value that has a query-string form.
    public init(_ name: String, _ value: (some QueryValueConvertible)?) {
        self.name = name
        self.value = value?.queryValue
    }
}

/// A value that can stand in a query string or URL path.
public protocol QueryValueConvertible: Sendable {
    /// The text form (not yet percent-encoded).
    var queryValue: String { get }
}

extension String: QueryValueConvertible {
    public var queryValue: String { self }
}

extension Int: QueryValueConvertible {
    public var queryValue: String { String(self) }
}

extension Int64: QueryValueConvertible {
    public var queryValue: String { String(self) }
}

extension Double: QueryValueConvertible {
    public var queryValue: String { String(self) }
}

extension Bool: QueryValueConvertible {
    public var queryValue: String { self ? "true" : "false" }
}

extension UUID: QueryValueConvertible {
    /// Lowercase, as servers print UUIDs (Foundation's `uuidString` is uppercase).
    public var queryValue: String { uuidString.lowercased() }
}

extension Date: QueryValueConvertible {
    public var queryValue: String { TimestampParser.format(self) }
}

extension URL: QueryValueConvertible {
    public var queryValue: String { absoluteString }
}

extension QueryValueConvertible where Self: RawRepresentable, RawValue == String {
    public var queryValue: String { rawValue }
}
