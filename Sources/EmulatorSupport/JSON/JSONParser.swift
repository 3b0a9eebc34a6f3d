/// A strict RFC 8259 parser producing ``JSONValue``.
///
/// Hand-written rather than Foundation's so that object key order survives, integers stay
/// integers, and a syntax error reports the byte offset FastAPI reports in `json_invalid`.
/// Nesting is capped so a hostile `[[[[...` body cannot exhaust the stack.
package struct JSONParser {
    /// Why and where parsing failed.
    package struct Failure: Error, Equatable {
        package var offset: Int
        package var reason: String
    }

    package static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a complete document; trailing non-whitespace is an error.
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw Failure(offset: parser.index, reason: "Extra data")
        }
        return value
    }

    /// Parses a UTF-8 string.
    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                index += 1
            default:
                return
            }
        }
    }

    private func fail(_ reason: String) -> Failure {
        Failure(offset: index, reason: reason)
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("Expecting value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("Expecting value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("Expecting value") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw fail("Expecting value")
        }
        index += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("Nesting too deep") }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("Expecting property name enclosed in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("Expecting ':' delimiter")
            }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("Expecting ',' delimiter") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            throw fail("Expecting ',' delimiter")
        }
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("Expecting ',' delimiter") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw fail("Expecting ',' delimiter")
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        let start = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        var hasEscapes = false
        // The bits of every byte of the string: ASCII text (the usual case) needs no UTF-8
        // check, which compared the decoded text with its bytes a byte at a time.
        var bits: UInt8 = 0
        while true {
            guard index < bytes.count else {
                throw Failure(offset: start, reason: "Unterminated string starting at")
            }
            let byte = bytes[index]
            bits |= byte
            if byte == UInt8(ascii: "\"") {
                if !hasEscapes {
                    let text = bits < 0x80 ? String(decoding: bytes[runStart..<index], as: UTF8.self) : try decodeUTF8(runStart..<index)
                    index += 1
                    return text
                }
                scalars.append(contentsOf: try decodeUTF8(runStart..<index).unicodeScalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 {
                throw fail("Invalid control character at")
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                scalars.append(contentsOf: try decodeUTF8(runStart..<index).unicodeScalars)
                index += 1
                scalars.append(try parseEscape())
                runStart = index
                continue
            }
            index += 1
        }
    }

    private func decodeUTF8(_ range: Range<Int>) throws(Failure) -> String {
        let slice = bytes[range]
        // `String(validating:as:)` needs macOS 15: decoding repairs what is not UTF-8, so the
        // bytes come back unchanged exactly when they were valid.
        let text = String(decoding: slice, as: UTF8.self)
        guard text.utf8.elementsEqual(slice) else {
            throw Failure(offset: range.lowerBound, reason: "Invalid UTF-8")
        }
        return text
    }

    private mutating func parseEscape() throws(Failure) -> Unicode.Scalar {
        guard index < bytes.count else { throw fail("Invalid \\escape") }
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
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("Invalid \\uXXXX escape") }
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw fail("Invalid \\uXXXX escape") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw fail("Invalid \\uXXXX escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw fail("Invalid \\uXXXX escape") }
            return scalar
        default:
            throw Failure(offset: index - 2, reason: "Invalid \\escape")
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("Invalid \\uXXXX escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("Invalid \\uXXXX escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            index = start
            throw fail("Expecting value")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("Expecting value") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("Expecting value") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) {
            return .int(value)
        }
        guard let value = Double(text), value.isFinite else {
            throw Failure(offset: start, reason: "Number out of range")
        }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
