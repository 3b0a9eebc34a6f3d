/// Protocol 2's checksums as a client reads them: a row's `row_checksum` and a scope's decimal
/// checksum are a signed 32-bit CRC-32 (XOR) on the server.
///
/// A server or proxy that writes the same 32 bits unsigned (`2745614147` for `-1549353149`) is
/// read as meaning the same checksum — the official client's `Int32(string)` rejects such a value
/// and fails the cycle. Anything outside the 32-bit range, or not a number, is no checksum.
enum ScopeChecksum {
    /// The checksum `text` stands for, signed or unsigned decimal; nil when it is not one.
    static func parse(_ text: String) -> Int32? {
        Int64(text).flatMap(fromWire)
    }

    /// A checksum sent as a JSON integer, signed or unsigned.
    static func fromWire(_ value: Int64) -> Int32? {
        if let signed = Int32(exactly: value) { return signed }
        if let unsigned = UInt32(exactly: value) { return Int32(bitPattern: unsigned) }
        return nil
    }

    /// The XOR of `checksums`: 0 for an empty scope.
    static func combine<Checksums: Sequence>(_ checksums: Checksums) -> Int32 where Checksums.Element == Int32 {
        checksums.reduce(0, ^)
    }
}
