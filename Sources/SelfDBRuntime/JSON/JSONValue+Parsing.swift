import Foundation

/// Why a JSON document could not be parsed, and where.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte offset where parsing stopped.
    public var offset: Int
    /// What was wrong there.
    public var reason: String

    /// An error at `offset` for `reason`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// The reason and the offset, for logs and error messages.
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// The deepest nesting ``parse(_:)`` accepts, so a hostile `[[[[…` cannot exhaust the stack.
    public static let maximumParsingDepth = 512

    /// Parses a complete JSON document (RFC 8259). Integers that fit `Int64` become
    /// ``integer(_:)``; other numbers ``number(_:)``. Throws ``JSONParseError``.
    ///
    /// Foundation's `JSONDecoder` reaches a free-form value (a synced row) only through
    /// `Codable`, which tries each kind in turn and throws for every miss; parsing the tree
    /// once and decoding from it (``JSONTreeDecoder``) takes each value as it is.
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { buffer in
            var parser = TreeParser(bytes: buffer.bindMemory(to: UInt8.self))
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.fail("unexpected data after the document") }
            return value
        }
    }

    /// Parses a JSON document whose top level is an object, leaving out the members named in
    /// `omitted`: their values are stepped over, checked only for their structure (strings
    /// closed, brackets matched, nesting within ``maximumParsingDepth``), and nothing is made
    /// of them. Throws ``JSONParseError``, also when the top level is not an object.
    ///
    /// For reading the small part of a large answer that decides what to do next (a pull
    /// page's cursors) before the whole of it: stepping over a page's rows costs a small
    /// part of parsing them.
    public static func parseObject(_ data: Data, omitting omitted: Set<String>) throws -> JSONValue {
        try data.withUnsafeBytes { buffer in
            var parser = TreeParser(bytes: buffer.bindMemory(to: UInt8.self))
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "{") else { throw parser.fail("expected an object") }
            let value = try parser.parseObject(omitting: omitted)
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.fail("unexpected data after the document") }
            return value
        }
    }
}

/// The parser behind ``JSONValue/parse(_:)``, over the bytes in place.
private struct TreeParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw fail("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("expected a value")
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) throws -> JSONValue {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw fail("expected a value")
        }
        index += expected.count
        return value
    }

    private mutating func enter() throws {
        depth += 1
        if depth > JSONValue.maximumParsingDepth { throw fail("nesting too deep") }
    }

    /// Past the member or element just read: true after a `,`, false at the closing `end`.
    private mutating func separator(closing end: UInt8) throws -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unterminated \(end == UInt8(ascii: "}") ? "object" : "array")") }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == end { return false }
        index -= 1
        throw fail("expected ',' or '\(Character(Unicode.Scalar(end)))'")
    }

    /// An object; the values of the members named in `omitted` are stepped over (``skipValue()``)
    /// and left out.
    mutating func parseObject(omitting omitted: Set<String> = []) throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        if isEmpty(closing: UInt8(ascii: "}")) { return .object([:]) }
        // The members are gathered first, so the dictionary is made at its final size: grown a
        // member at a time, it hashed every key again at each growth (a fifth of parsing a
        // pull page).
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            if !omitted.isEmpty, omitted.contains(key) {
                try skipValue()
            } else {
                members.append((key, try parseValue()))
            }
        } while try separator(closing: UInt8(ascii: "}"))
        var object = [String: JSONValue](minimumCapacity: members.count)
        // A repeated name keeps its last value.
        for member in members { object[member.key] = member.value }
        return .object(object)
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if isEmpty(closing: UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            skipWhitespace()
            elements.append(try parseValue())
        } while try separator(closing: UInt8(ascii: "]"))
        return .array(elements)
    }

    /// Steps over one value without making anything of it: strings are scanned to their
    /// closing quote (escapes stepped over whole, control characters refused), arrays and
    /// objects to their matching bracket, numbers and literals by their grammar.
    mutating func skipValue() throws {
        guard index < bytes.count else { throw fail("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try enter()
            defer { depth -= 1 }
            if isEmpty(closing: UInt8(ascii: "}")) { return }
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                try skipString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                try skipValue()
            } while try separator(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            try enter()
            defer { depth -= 1 }
            if isEmpty(closing: UInt8(ascii: "]")) { return }
            repeat {
                skipWhitespace()
                try skipValue()
            } while try separator(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "\""): try skipString()
        default: _ = try parseValue()
        }
    }

    /// Past an opening bracket: true, and past its closing one too, when nothing is between.
    private mutating func isEmpty(closing end: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == end else { return false }
        index += 1
        return true
    }

    /// Steps over a string, its escapes whole.
    private mutating func skipString() throws {
        let start = index
        index += 1
        var highBits: UInt64 = 0
        skipPlainRun(&highBits)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            }
            if byte < 0x20 { throw fail("control character in a string") }
            index += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        throw JSONParseError(offset: start, reason: "unterminated string")
    }

    /// Moves past the bytes of a string that need no attention (no `"`, `\\` or control
    /// character) eight at a time, and gathers their high bits (non-zero: not all ASCII). It
    /// stops at the first word holding a byte that needs attention, which the caller then reads
    /// a byte at a time: a byte-at-a-time loop over every byte of a page's strings was the
    /// largest part of parsing it.
    private mutating func skipPlainRun(_ highBits: inout UInt64) {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var position = index
        while position + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            // A byte equal to `"` or `\\`, or below 0x20, somewhere in the word (exact as a
            // yes or no, which is all that is asked).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            highBits |= word & highs
            position += 8
        }
        index = position
    }

    private mutating func parseString() throws -> String {
        let start = index
        index += 1
        let runStart = index
        // The common case: no escape, so the bytes are the string. Their bits are gathered on
        // the way, so ASCII text needs no UTF-8 check after.
        var highBits: UInt64 = 0
        skipPlainRun(&highBits)
        var bits: UInt8 = highBits == 0 ? 0 : 0x80
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = bits < 0x80 ? ascii(runStart..<index) : try utf8(runStart..<index, from: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in a string") }
            bits |= byte
            index += 1
        }
        guard index < bytes.count else { throw JSONParseError(offset: start, reason: "unterminated string") }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try utf8(runStart..<index, from: start).unicodeScalars)
        var run = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: try utf8(run..<index, from: start).unicodeScalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: try utf8(run..<index, from: start).unicodeScalars)
                index += 1
                scalars.append(try parseEscape())
                run = index
                continue
            }
            index += 1
        }
        throw JSONParseError(offset: start, reason: "unterminated string")
    }

    /// Bytes known to be ASCII as a string.
    private func ascii(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func utf8(_ range: Range<Int>, from start: Int) throws -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        // `String(validating:as:)` needs iOS 18 / macOS 15: decoding repairs what is not
        // UTF-8, so the bytes come back unchanged exactly when they were valid.
        let text = String(decoding: slice, as: UTF8.self)
        guard slice.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(slice) else {
            throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string")
        }
        return text
    }

    private mutating func parseEscape() throws -> Unicode.Scalar {
        guard index < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                // A high surrogate must be followed by `\u` and its low half.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate")
                }
                index += 2
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second),
                    let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                else { throw fail("unpaired surrogate") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw fail("unpaired surrogate") }
            return scalar
        default:
            index -= 1
            throw fail("invalid escape")
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259's number grammar; an integer that fits `Int64` stays one.
    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // Up to 18 digits always fit `Int64`: read in place, with no text made.
        if isInteger, index - start <= 18 {
            var magnitude: Int64 = 0
            for byte in bytes[start..<index] where byte != UInt8(ascii: "-") { magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0")) }
            return .integer(bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw JSONParseError(offset: start, reason: "number out of range") }
        return .number(number)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
