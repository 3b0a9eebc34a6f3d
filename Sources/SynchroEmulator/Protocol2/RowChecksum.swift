import EmulatorSupport

/// The integrity checksums of Synchro protocol 2, computed as the real server computes them
/// (`synchro-core/src/checksum.rs`), so a client that checks them against our emulator checks
/// them against production too.
///
/// A row's checksum is the CRC-32 (IEEE, as zlib) of its canonical JSON, read as a signed 32-bit
/// integer; a scope's is the XOR of the checksums of its live rows, sent as a decimal string.
enum RowChecksum {
    /// The checksum of `row`, the full synced row as it is served (registered timestamp columns
    /// already in their `YYYY-MM-DDTHH:MM:SS.sssZ` form).
    static func of(_ row: JSONValue) -> Int32 {
        of(canonicalBytes: canonicalBytes(row))
    }

    /// The checksum of a row already in its canonical form (``canonicalBytes(_:)``).
    static func of(canonicalBytes bytes: [UInt8]) -> Int32 {
        Int32(bitPattern: CRC32.checksum(bytes))
    }

    /// The XOR of `checksums`: 0 for an empty scope.
    static func combine<Checksums: Sequence>(_ checksums: Checksums) -> Int32 where Checksums.Element == Int32 {
        checksums.reduce(0, ^)
    }

    /// `row` as serde_json writes a value whose object keys were sorted: compact, keys in byte
    /// order at every level, only `"`, `\` and control characters escaped, integers as
    /// integers, floats in their shortest round-trip form (`25.5`, `10.0`, `1e20`).
    static func canonicalBytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(value, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null, .bool, .int, .string:
            JSONWriter.write(value, into: &output)
        case .double(let number):
            output.append(contentsOf: shortestRoundTrip(number).utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            // Byte order, compared in place (copying both keys for every comparison was most of
            // a row's checksum); a served row is in that order already (``ScopeMembership/wireRow(_:_:)``).
            func precedes(_ first: (key: String, value: JSONValue), _ second: (key: String, value: JSONValue)) -> Bool {
                first.key.utf8.lexicographicallyPrecedes(second.key.utf8)
            }
            let inOrder = zip(object.members, object.members.dropFirst()).allSatisfy { !precedes($1, $0) }
            let members = inOrder ? object.members : object.members.sorted(by: precedes)
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// ryu's form, which serde_json writes: Swift's shortest digits, with a `.0` on integral
    /// values below 10^16 and the exponent without `+` or leading zeros (`1e20`, `1.5e-7`).
    static func shortestRoundTrip(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 1e16 {
            return "\(Int64(number)).0"
        }
        let text = "\(number)"
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return text }
        let mantissa = text[..<e]
        var exponent = text[text.index(after: e)...]
        var sign = ""
        if exponent.first == "+" {
            exponent = exponent.dropFirst()
        } else if exponent.first == "-" {
            sign = "-"
            exponent = exponent.dropFirst()
        }
        let digits = exponent.drop { $0 == "0" }
        return "\(mantissa)e\(sign)\(digits.isEmpty ? "0" : String(digits))"
    }
}

/// CRC-32 with the IEEE 802.3 polynomial (reflected 0xEDB88320), as zlib and Rust's crc32fast.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
