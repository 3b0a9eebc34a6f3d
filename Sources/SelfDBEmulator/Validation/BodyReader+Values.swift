import EmulatorSupport

/// The numbers, UUIDs and collections of the admin services' bodies (functions, webhooks,
/// SQL), read as pydantic reads them in its default (lax) mode.
extension BodyReader {
    /// An integer field with bounds: integers, booleans, floats without a fraction and integer
    /// strings are accepted, as pydantic's lax mode accepts them. `null` reads as nil for an
    /// `Optional[int]` field only (`nullable`); a plain `int` with a default refuses it.
    mutating func int(_ name: String, required: Bool = false, nullable: Bool = true, minimum: Int64? = nil, maximum: Int64? = nil) -> Int64? {
        guard let (key, value) = raw(name, aliases: [], required: required) else { return nil }
        let number: Int64
        switch value {
        case .null where !required && nullable:
            return nil
        case .int(let integer):
            number = integer
        case .bool(let flag):
            number = flag ? 1 : 0
        case .double(let double):
            guard double.rounded() == double, let exact = Int64(exactly: double) else {
                fail(.intFromFloat(.body, key, input: value))
                return nil
            }
            number = exact
        case .string(let text):
            guard let parsed = Int64(text.trimmingSpaces) else {
                fail(.intParsing(.body, key, input: value))
                return nil
            }
            number = parsed
        default:
            fail(.intType(.body, key, input: value))
            return nil
        }
        if let minimum, number < minimum {
            fail(.greaterThanOrEqual(.body, key, limit: minimum, input: value))
            return nil
        }
        if let maximum, number > maximum {
            fail(.lessThanOrEqual(.body, key, limit: maximum, input: value))
            return nil
        }
        return number
    }

    /// A string of at least one character that a validator of its own refuses when blank (all
    /// whitespace to Python's `strip()`), with `blankMessage` as its `value_error`.
    mutating func nonBlankString(_ name: String, required: Bool, blankMessage: String) -> String? {
        guard let text = string(name, required: required, nullable: !required, minLength: 1) else { return nil }
        guard !PythonText.isBlank(text) else {
            fail(.valueError(.body, name, message: blankMessage, input: .string(text)))
            return nil
        }
        return text
    }

    /// A UUID field, in any spelling pydantic accepts, returned canonical.
    mutating func uuid(_ name: String, required: Bool = false) -> String? {
        guard let (key, value) = raw(name, aliases: [], required: required) else { return nil }
        if value.isNull, !required { return nil }
        guard let text = value.stringValue else {
            fail(ValidationIssue(type: "uuid_type", loc: ValidationIssue.at(.body, key), msg: "UUID input should be a string, bytes or UUID object", input: value))
            return nil
        }
        switch UUIDParsing.parse(text) {
        case .success(let id):
            return id
        case .failure(let failure):
            fail(.uuidParsing(.body, key, error: failure.message, input: value))
            return nil
        }
    }

    /// A `Dict[str, str]` field: every value must be a string.
    mutating func stringDictionary(_ name: String, required: Bool = false) -> [(String, String)]? {
        guard let object = dictionary(name, required: required) else { return nil }
        var pairs: [(String, String)] = []
        var valid = true
        for (key, value) in object {
            guard let text = value.stringValue else {
                fail(ValidationIssue.stringType(.body, name, input: value).nested(under: .string(key)))
                valid = false
                continue
            }
            pairs.append((key, text))
        }
        return valid ? pairs : nil
    }

    /// A `List[str]` field.
    mutating func stringArray(_ name: String) -> [String]? {
        guard let (key, value) = raw(name, aliases: [], required: false) else { return nil }
        guard let items = value.arrayValue else {
            fail(.listType(.body, key, input: value))
            return nil
        }
        var strings: [String] = []
        var valid = true
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue else {
                fail(ValidationIssue.stringType(.body, key, input: item).nested(under: .int(Int64(index))))
                valid = false
                continue
            }
            strings.append(text)
        }
        return valid ? strings : nil
    }
}
