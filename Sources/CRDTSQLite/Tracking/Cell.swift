/// One tracked cell's metadata: the column's version and the write that set it.
struct Cell: Equatable {
    var version: Int64
    var dbVersion: Int64
    var node: Int64
    var sequence: Int64

    /// The ordering merges compare: strictly greater wins.
    var stamp: (Int64, Int64, Int64) { (version, dbVersion, node) }
}
