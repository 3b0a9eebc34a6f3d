/// UUID text read as a pydantic `UUID` field reads it: pydantic-core hands the string to the
/// Rust `uuid` crate's `Uuid::parse_str`, so the accepted spellings and, on failure, the
/// wording pydantic puts in `ctx.error` of a `uuid_parsing` issue are that crate's.
///
/// Accepted: 32 hex digits, the hyphenated 8-4-4-4-12 form, and that form in braces or after
/// `urn:uuid:`, in either letter case.
enum UUIDParsing {
    /// Why a text is not a UUID, worded as the `uuid` crate words it.
    struct Failure: Error, Equatable {
        var message: String
    }

    private static let urnPrefix = Array("urn:uuid:".utf8)
    /// Where each hyphenated group starts.
    private static let groupStarts = [0, 9, 14, 19, 24]
    private static let groupLengths = [8, 4, 4, 4, 12]

    /// The UUID in Python's `str(uuid)` form (lowercase, hyphenated), or why `text` is not one.
    static func parse(_ text: String) -> Result<String, Failure> {
        let bytes = Array(text.utf8)
        let digits: ArraySlice<UInt8>?
        switch bytes.count {
        case 32: digits = simpleDigits(bytes[...])
        case 36: digits = hyphenatedDigits(bytes[...])
        case 38 where bytes.first == UInt8(ascii: "{") && bytes.last == UInt8(ascii: "}"):
            digits = hyphenatedDigits(bytes[1..<37])
        case 45 where bytes.starts(with: urnPrefix):
            digits = hyphenatedDigits(bytes[9...])
        default: digits = nil
        }
        guard let digits else { return .failure(failure(for: text)) }
        let hex = String(decoding: digits, as: UTF8.self).lowercased()
        var formatted = ""
        var index = hex.startIndex
        for (group, length) in groupLengths.enumerated() {
            let end = hex.index(index, offsetBy: length)
            formatted += (group == 0 ? "" : "-") + hex[index..<end]
            index = end
        }
        return .success(formatted)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    private static func simpleDigits(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        bytes.allSatisfy(isHexDigit) ? bytes : nil
    }

    /// The 32 digits of an 8-4-4-4-12 form, or nil.
    private static func hyphenatedDigits(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var digits: [UInt8] = []
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                guard isHexDigit(byte) else { return nil }
                digits.append(byte)
            }
        }
        return digits[...]
    }

    /// The crate's `InvalidUuid::into_err`: the first bad character, else a wrong length of the
    /// simple form, else a wrong number of groups, else the first group of the wrong length.
    /// Positions are 1-based UTF-8 byte offsets into the whole input.
    private static func failure(for text: String) -> Failure {
        let bytes = Array(text.utf8)
        let body: Substring.UnicodeScalarView
        let offset: Int
        let simple: Bool
        if bytes.count >= 2, bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") {
            body = text.unicodeScalars.dropFirst().dropLast()
            (offset, simple) = (1, false)
        } else if bytes.starts(with: urnPrefix) {
            body = text.unicodeScalars.dropFirst(urnPrefix.count)
            (offset, simple) = (urnPrefix.count, false)
        } else {
            body = text[...].unicodeScalars
            (offset, simple) = (0, true)
        }
        var hyphens: [Int] = []
        var position = 0
        for scalar in body {
            if scalar == "-" {
                hyphens.append(position)
            } else if !(scalar.isASCII && isHexDigit(UInt8(scalar.value))) {
                return Failure(
                    message: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `\(scalar)` at \(position + offset + 1)"
                )
            }
            position += String(scalar).utf8.count
        }
        if hyphens.isEmpty, simple {
            return Failure(message: "invalid length: expected length 32 for simple format, found \(bytes.count)")
        }
        guard hyphens.count == 4 else {
            return Failure(message: "invalid group count: expected 5, found \(hyphens.count + 1)")
        }
        for group in 0..<4 where hyphens[group] != groupStarts[group + 1] - 1 {
            return groupLength(group, found: hyphens[group] - groupStarts[group])
        }
        // The crate measures the last group against the whole input, braces or prefix included.
        return groupLength(4, found: bytes.count - groupStarts[4])
    }

    private static func groupLength(_ group: Int, found: Int) -> Failure {
        Failure(message: "invalid group length in group \(group): expected \(groupLengths[group]), found \(found)")
    }
}
