import SelfDBSpec

/// One difference between a spec and a server's OpenAPI document, at the spec's line and
/// column, in the compiler's format (`path:line:col: error: …`).
public struct DriftFinding: Hashable, Sendable, CustomStringConvertible {
    /// How much a difference matters.
    public enum Severity: String, Hashable, Sendable {
        /// The spec promises what the server does not do: calls will fail.
        case error
        /// The server differs in a way that may fail calls (a field the spec decodes as
        /// optional is required there, say) or that the spec may want.
        case warning
        /// What the server has and the spec does not cover, or a difference the spec declares.
        case note
    }

    /// Error, warning or note.
    public var severity: Severity
    /// The difference, in one sentence.
    public var message: String
    /// The spec node it is about.
    public var location: SourceLocation

    /// The compiler's format: `path:line:col: severity: message`.
    public var description: String { "\(location.file):\(location.line):\(location.column): \(severity.rawValue): \(message)" }
}
