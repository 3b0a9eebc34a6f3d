import EmulatorSupport

/// Writes a pull or rebuild page's JSON straight into bytes, member by member; rows come
/// serialised already (``ServedRow``).
///
/// Building every change as a `JSONValue` tree, then writing the tree, took half of the time
/// the server spent on a pull page of 1,000 rows, and a pull page is on the path of every
/// device that waits for another's writes.
struct PageWriter {
    private(set) var bytes: [UInt8] = []
    /// Per array or object being written: whether it has a member yet.
    private var started: [Bool] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// `{`, then members.
    mutating func openObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        started.append(false)
    }

    mutating func closeObject() {
        started.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// `"key":[`, then elements.
    mutating func openArray(_ key: String) {
        name(key)
        bytes.append(UInt8(ascii: "["))
        started.append(false)
    }

    mutating func closeArray() {
        started.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// `"key":value`.
    mutating func member(_ key: String, _ value: JSONValue) {
        name(key)
        JSONWriter.write(value, into: &bytes)
    }

    /// `"row":…,"row_checksum":…` for a row as protocol 2 serves it.
    mutating func servedRow(_ row: ServedRow) {
        name("row")
        bytes.append(contentsOf: row.wireBytes)
        name("row_checksum")
        bytes.append(contentsOf: String(row.checksum).utf8)
    }

    private mutating func name(_ key: String) {
        separate()
        JSONWriter.writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A comma before every member or element but the first of its container.
    private mutating func separate() {
        guard let last = started.indices.last else { return }
        if started[last] { bytes.append(UInt8(ascii: ",")) }
        started[last] = true
    }
}
