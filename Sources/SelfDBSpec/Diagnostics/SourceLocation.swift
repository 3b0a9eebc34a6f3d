/// A position in a spec file: 1-based line and column, as compilers and editors count them.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The file the position is in, as the caller named it (relative paths stay relative).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars (as libyaml counts them).
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = max(1, line)
        self.column = max(1, column)
    }

    /// `file:line:col`, the prefix compilers print before a diagnostic.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
