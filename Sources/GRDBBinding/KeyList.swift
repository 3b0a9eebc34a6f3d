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
}
