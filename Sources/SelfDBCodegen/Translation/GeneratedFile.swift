/// One Swift file the generator produces.
public struct GeneratedFile: Hashable, Sendable {
    /// File name, e.g. `selfdb.models.generated.swift`.
    public var name: String
    /// Its full text.
    public var contents: String

    /// Creates a file.
    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}
