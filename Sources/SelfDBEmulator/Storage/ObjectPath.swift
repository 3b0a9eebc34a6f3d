import EmulatorSupport

/// Object paths inside a bucket, and SelfDB's renaming of duplicates.
enum ObjectPath {
    /// The path without a leading `/`; nil for empty paths or `.`/`..` segments.
    static func normalized(_ raw: String) -> String? {
        var path = Substring(raw.trimmingSpaces)
        while path.hasPrefix("/") { path = path.dropFirst() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return String(path)
    }

    /// The last path segment.
    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `dir/name (n).ext` for `dir/name.ext`.
    static func numbered(_ path: String, _ number: Int) -> String {
        let name = self.name(of: path)
        let directory = String(path.dropLast(name.count))
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return directory + "\(name[..<dot]) (\(number))\(name[dot...])"
        }
        return directory + "\(name) (\(number))"
    }
}
