/// One finding about a spec: an error that stops generation, or a warning that does not.
///
/// Its `description` is the compiler's format, `path:line:col: error: message`, because that
/// is the only shape SwiftPM passes through from a build-tool plugin with its location intact
/// and the one editors and CI log parsers already understand.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How bad a finding is.
    public enum Severity: String, Hashable, Sendable, Comparable {
        case warning
        case error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    /// Error or warning.
    public var severity: Severity
    /// What is wrong, in one sentence, with a suggestion where one is known.
    public var message: String
    /// The node that caused it.
    public var location: SourceLocation

    /// Messages quote what the spec says; a quoted megabyte helps nobody reading a build log.
    static let maximumMessageLength = 1_000

    /// Creates a diagnostic. A message longer than ``maximumMessageLength`` characters keeps
    /// its start and its end (where suggestions go) around an elision.
    public init(_ severity: Severity, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.message = Self.elided(message)
        self.location = location
    }

    private static func elided(_ message: String) -> String {
        guard message.utf8.count > maximumMessageLength, message.count > maximumMessageLength else { return message }
        let kept = maximumMessageLength / 2
        return "\(message.prefix(kept))… (\(message.count - 2 * kept) characters elided) …\(message.suffix(kept))"
    }

    /// An error at `location`.
    public static func error(_ message: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.error, message, at: location)
    }

    /// A warning at `location`.
    public static func warning(_ message: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.warning, message, at: location)
    }

    /// `path:line:col: error: message`.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }

    /// The diagnostics in file order, so output is stable whatever order checks ran in.
    public func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            if lhs.element.location != rhs.element.location {
                return lhs.element.location < rhs.element.location
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
