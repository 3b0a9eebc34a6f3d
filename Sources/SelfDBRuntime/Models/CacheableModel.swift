import Foundation

/// A model with a stable identity, which a local cache can key its copies by.
///
/// Table models are cacheable as generated (their key is the primary key). Any other model,
/// generated or hand-written, becomes cacheable by declaring the conformance: models with an
/// `id` field are generated `Identifiable`, which supplies the key.
///
/// ```swift
/// extension Invoice: CacheableModel {}
/// ```
///
/// or, in the spec, `conforms: [CacheableModel]` on the model (SelfDB's own spec does so for
/// users, tables, buckets and files).
public protocol CacheableModel: Codable, Hashable, Sendable {
    /// The namespace of this type's items, so that items of different types never share a
    /// key. Defaults to the table name for table models and to `model:<TypeName>` otherwise.
    static var cacheTypeName: String { get }
    /// The item's key within its type. Two values with the same key are the same item, in
    /// different versions.
    var cacheKey: String { get }
}

extension CacheableModel {
    /// `model:` and the type's name: never a table name (those cannot contain a colon).
    public static var cacheTypeName: String { "model:\(String(describing: Self.self))" }
}

extension CacheableModel where Self: Identifiable {
    /// The text form of `id` (see `CacheKey.text(of:)`).
    public var cacheKey: String { CacheKey.text(of: id) }
}

/// The text form of identifiers, the same whichever way an item reaches the cache.
public enum CacheKey {
    /// `uuidString` for UUIDs (as JSON encodes them), the text of strings and integers,
    /// the wire form of dates, and the description of anything else.
    public static func text(of value: some Hashable) -> String {
        switch value {
        case let uuid as UUID: uuid.uuidString
        case let text as String: text
        case let date as Date: TimestampParser.format(date)
        case let value as any QueryValueConvertible: value.queryValue
        default: String(describing: value)
        }
    }
}
