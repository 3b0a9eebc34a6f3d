/// The coding key of generated models: a member name of the JSON object, written as a string
/// literal (`forKey: "created_at"`).
///
/// Generated models decode and encode through this one shared type instead of a `CodingKeys`
/// enum of their own. Such an enum is the largest part of a model's compiled code (its
/// `CodingKey`, `RawRepresentable`, `Hashable` and description conformances, each a switch
/// over every field), and a spec's models are most of what an app compiles from it: measured on
/// a spec of 300 models, the models file compiles in three quarters of the time without them.
/// A decoder sees the same `stringValue`s, so the wire form and error paths are unchanged.
public struct WireKey: CodingKey, ExpressibleByStringLiteral, Hashable, Sendable {
    /// The member name on the wire.
    public let stringValue: String

    /// A key for the member named `name`.
    public init(_ name: String) { self.stringValue = name }

    /// A key for the member named `stringValue`.
    public init(stringValue: String) { self.stringValue = stringValue }

    /// A key for the member named by the literal.
    public init(stringLiteral value: String) { self.stringValue = value }

    /// JSON objects are keyed by text: an integer key is its decimal form.
    public init(intValue: Int) { self.stringValue = String(intValue) }

    /// Always `nil`: generated models key by name.
    public var intValue: Int? { nil }
}
