import Foundation

extension JSONValue {
    /// The value as compact JSON text in UTF-8, written as ``JSONCoding/makeEncoder()`` writes:
    /// object keys sorted (by their UTF-8 bytes), `/` not escaped, integers as integers.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, which JSON cannot hold.
    public func serialized() throws -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try Self.write(self, into: &output)
        return Data(output)
    }

    /// Appends the value to `output` as ``serialized()`` writes it: for a writer that puts
    /// values into a document of its own.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number.
    public func write(into output: inout [UInt8]) throws {
        try Self.write(self, into: &output)
    }

    /// Appends `text` to `output` as a JSON string, escaped as ``serialized()`` escapes it.
    public static func write(string text: String, into output: inout [UInt8]) {
        writeString(text, into: &output)
    }

    /// Whether the member name `left` comes before `right` in ``serialized()``'s order (by
    /// their UTF-8 bytes).
    public static func keyPrecedes(_ left: String, _ right: String) -> Bool {
        utf8Precedes(left, right)
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) throws {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let integer): output.append(contentsOf: String(integer).utf8)
        case .number(let number): output.append(contentsOf: try text(of: number).utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorted, so a request's body is the same bytes every time it is sent.
            let sorted = members.count < 2 ? Array(members) : members.sorted { utf8Precedes($0.key, $1.key) }
            for (position, member) in sorted.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                try write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A number without a fraction as an integer (`3`, as Foundation writes `3.0`), anything
    /// else in Swift's shortest round-trip form (`2.5`, `1e-07`), which JSON reads back exactly.
    private static func text(of number: Double) throws -> String {
        guard number.isFinite else {
            throw EncodingError.invalidValue(number, .init(codingPath: [], debugDescription: "\(number) is not a JSON number"))
        }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Whether `left` sorts before `right` by their UTF-8 bytes, compared in the strings' own
    /// buffers (the generic comparison of two `UTF8View`s was a tenth of writing a push batch).
    private static func utf8Precedes(_ left: String, _ right: String) -> Bool {
        let inPlace = left.utf8.withContiguousStorageIfAvailable { lhs in
            right.utf8.withContiguousStorageIfAvailable { rhs in
                for index in 0..<min(lhs.count, rhs.count) where lhs[index] != rhs[index] {
                    return lhs[index] < rhs[index]
                }
                return lhs.count < rhs.count
            }
        }
        return (inPlace ?? nil) ?? left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// A string with `"`, `\` and the control characters escaped; the rest as its UTF-8 bytes.
    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: scanned in their own buffer and copied whole (a byte at
        // a time through the generic `UTF8View`, strings were half of writing a push batch).
        if text.utf8.withContiguousStorageIfAvailable({ !$0.contains(where: needsEscape) }) == true {
            output.append(contentsOf: text.utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(Self.digits[Int(byte >> 4)])
                output.append(Self.digits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
