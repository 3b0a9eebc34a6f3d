/// A YAML node with the location it was read from.
///
/// Yams' own `Node` keeps marks too, but it is not `Sendable`, resolves tags the YAML 1.1 way
/// (`no` is a boolean) and hides duplicate keys. The loader wants plain text scalars it can
/// interpret per key, ordered mapping entries including duplicates, and a location on every
/// key as well as every value — so the reader converts once into this tree.
public indirect enum SpecNode: Hashable, Sendable {
    /// A scalar: its text exactly as written (quotes removed), and whether it was quoted.
    case scalar(Scalar)
    /// A mapping, entries in file order (duplicate keys kept, for the validator to report).
    case mapping(Mapping)
    /// A sequence.
    case sequence(Sequence)

    /// A scalar value.
    public struct Scalar: Hashable, Sendable {
        /// The text, without quotes.
        public var text: String
        /// Whether the scalar was quoted (a quoted `null` or `true` is text).
        public var isQuoted: Bool
        /// Where it starts (at the opening quote of a quoted scalar).
        public var location: SourceLocation
        /// The column of the text's first character when the text stands verbatim on one
        /// source line (no escapes, no line folding), so that an offset into the text is an
        /// offset in the line; `nil` when it does not.
        public var textColumn: Int?

        /// Creates a scalar.
        public init(text: String, isQuoted: Bool, location: SourceLocation, textColumn: Int? = nil) {
            self.text = text
            self.isQuoted = isQuoted
            self.location = location
            self.textColumn = textColumn
        }

        /// The location of the character `offset` characters into the text: exact when the
        /// text stands verbatim in the source, the scalar's start otherwise.
        public func location(ofCharacterOffset offset: Int) -> SourceLocation {
            guard let textColumn else { return location }
            var result = location
            result.column = textColumn + String(text.prefix(max(0, offset))).unicodeScalars.count
            return result
        }
    }

    /// One `key: value` entry of a mapping.
    public struct Entry: Hashable, Sendable {
        /// The key; always a scalar (complex keys are rejected by the reader).
        public var key: Scalar
        /// The value.
        public var value: SpecNode
    }

    /// A mapping.
    public struct Mapping: Hashable, Sendable {
        /// Entries in file order.
        public var entries: [Entry]
        /// Where the mapping starts.
        public var location: SourceLocation
    }

    /// A sequence.
    public struct Sequence: Hashable, Sendable {
        /// Items in file order.
        public var items: [SpecNode]
        /// Where the sequence starts.
        public var location: SourceLocation
    }

    /// Where the node starts.
    public var location: SourceLocation {
        switch self {
        case .scalar(let scalar): scalar.location
        case .mapping(let mapping): mapping.location
        case .sequence(let sequence): sequence.location
        }
    }

    /// A short name for the node's kind, for messages ("expected a mapping, found a sequence").
    public var kindDescription: String {
        switch self {
        case .scalar(let scalar): scalar.text.isEmpty && !scalar.isQuoted ? "an empty value" : "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        }
    }
}
