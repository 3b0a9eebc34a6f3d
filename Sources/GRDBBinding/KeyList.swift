/// Lists of keys bound into one statement (`IN (…)`, `VALUES …`), a few hundred at a time.
package enum KeyList {
    /// How many keys one statement lists at most: under SQLite's smallest limit on parameters
    /// (999 before 3.32), with few statements for a page or a batch.
    package static let maximumCount = 512

    /// The number of places a statement for `count` keys has: `count` rounded up to a power of
    /// two (at least 8), the rest bound to null, which matches nothing. A cached statement per
    /// size is compiled, not one per list length (GRDB's cache keeps every one it is given).
    package static func paddedCount(_ count: Int) -> Int {
        var size = 8
        while size < count { size *= 2 }
        return size
    }

    /// `keys` cut into lists of at most ``maximumCount``.
    package static func chunks<Key>(_ keys: [Key]) -> [ArraySlice<Key>] {
        stride(from: 0, to: keys.count, by: maximumCount).map { keys[$0..<min($0 + maximumCount, keys.count)] }
    }

    /// `?, ?, …`: the places of a list of `size` keys (a padded count). Written once per size:
    /// writing it again for every list, only to find the cached statement, showed in profiles.
    package static func places(_ size: Int) -> String {
        placesBySize[size] ?? Array(repeating: "?", count: size).joined(separator: ", ")
    }

    /// `(0, ?), (1, ?), …`: a `VALUES` list of `size` keys, each numbered by its position.
    package static func numberedPlaces(_ size: Int) -> String {
        numberedPlacesBySize[size] ?? (0..<size).map { "(\($0), ?)" }.joined(separator: ", ")
    }

    private static let paddedSizes = Array(Set((0...maximumCount).map(paddedCount)))
    private static let placesBySize = Dictionary(uniqueKeysWithValues: paddedSizes.map { ($0, Array(repeating: "?", count: $0).joined(separator: ", ")) })
    private static let numberedPlacesBySize = Dictionary(uniqueKeysWithValues: paddedSizes.map { size in (size, (0..<size).map { "(\($0), ?)" }.joined(separator: ", ")) })
}
