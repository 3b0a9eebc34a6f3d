import EmulatorSupport

/// Reads the fields of a JSON request body the way a pydantic model would, collecting
/// every problem before failing so one 422 lists them all.
struct BodyReader {
    private(set) var issues: [ValidationIssue] = []
    private(set) var object = JSONObject()
    private var consumed: Set<String> = []
    /// `false` when the body was missing or not an object; field reads then return nil.
    private(set) var isObject = false

    /// - Parameters:
    ///   - body: the parsed body, or nil if the request had none
    ///   - dictionaryBody: `true` for `Dict[str, Any]` bodies (other wording in the issue)
    init(_ body: JSONValue?, dictionaryBody: Bool = false) {
        guard let body else {
            issues.append(.missing(.body, nil))
            return
        }
        guard let object = body.objectValue else {
            issues.append(dictionaryBody ? .dictType(.body, nil, input: body) : .modelType(input: body))
            return
        }
        self.object = object
        isObject = true
    }

    /// `true` if the client sent this field (even as null), under any of its names.
    func has(_ name: String, aliases: [String] = []) -> Bool {
        ([name] + aliases).contains { object.contains($0) }
    }

    mutating func raw(_ name: String, aliases: [String], required: Bool) -> (String, JSONValue)? {
        guard isObject else { return nil }
        for key in [name] + aliases {
            if let value = object[key] {
                consumed.insert(key)
                for alias in [name] + aliases { consumed.insert(alias) }
                return (key, value)
            }
        }
        if required {
            issues.append(.missing(.body, name))
        }
        return nil
    }

    /// How pydantic reports a string shorter than its minimum.
    enum MinimumLengthReport {
        /// The constraint sits on the string schema: `string_too_short`.
        case string
        /// The constraint runs as a validator of its own: `too_short` with the length found.
        case value
    }

    /// A string field; `null` for an optional field reads as nil. Lengths count Unicode scalars,
    /// as Python's `len` does.
    mutating func string(
        _ name: String,
        aliases: [String] = [],
        required: Bool = false,
        nullable: Bool = true,
        minLength: Int? = nil,
        minLengthReport: MinimumLengthReport = .string,
        maxLength: Int? = nil,
        pattern: (text: String, matches: (String) -> Bool)? = nil
    ) -> String? {
        guard let (key, value) = raw(name, aliases: aliases, required: required) else { return nil }
        if value.isNull, nullable, !required { return nil }
        guard let text = value.stringValue else {
            issues.append(.stringType(.body, key, input: value))
            return nil
        }
        let length = text.unicodeScalars.count
        if let minLength, length < minLength {
            switch minLengthReport {
            case .string: issues.append(.tooShort(.body, key, minimum: minLength, input: value))
            case .value: issues.append(.tooShortValue(.body, key, minimum: minLength, actual: length, input: value))
            }
            return nil
        }
        if let maxLength, length > maxLength {
            issues.append(.tooLong(.body, key, maximum: maxLength, input: value))
            return nil
        }
        if let pattern, !pattern.matches(text) {
            issues.append(.patternMismatch(.body, key, pattern: pattern.text, input: value))
            return nil
        }
        return text
    }

    /// A strict boolean field (JSON `true`/`false` only). With `nullable: false` an explicit
    /// `null` is refused even where the field may be left out (SelfDB's `public`).
    mutating func bool(_ name: String, aliases: [String] = [], required: Bool = false, nullable: Bool = true) -> Bool? {
        guard let (key, value) = raw(name, aliases: aliases, required: required) else { return nil }
        if value.isNull, nullable, !required { return nil }
        guard let flag = value.boolValue else {
            issues.append(.boolType(.body, key, input: value))
            return nil
        }
        return flag
    }

    /// A boolean field read the way pydantic's lax mode reads one: `true`/`false`, the
    /// numbers 0 and 1, and the strings `0`/`1`, `true`/`false`, `yes`/`no`, `on`/`off`,
    /// `t`/`f`, `y`/`n` in any letter case. SelfDB reads `isActive` like this.
    /// `null` reads as nil for an `Optional[bool]` (`nullable`); a plain `bool` refuses it.
    mutating func laxBool(_ name: String, aliases: [String] = [], nullable: Bool = true) -> Bool? {
        guard let (key, value) = raw(name, aliases: aliases, required: false) else { return nil }
        switch value {
        case .null where nullable: return nil
        case .null:
            issues.append(.boolType(.body, key, input: value))
            return nil
        case .bool(let flag): return flag
        case .int(0): return false
        case .int(1): return true
        case .double(let number) where number == 0 || number == 1: return number == 1
        case .string(let text):
            switch text.lowercased() {
            case "1", "true", "yes", "on", "t", "y": return true
            case "0", "false", "no", "off", "f", "n": return false
            default: break
            }
        default: break
        }
        issues.append(.boolParsing(.body, key, input: value))
        return nil
    }

    /// An object (`Dict[str, Any]`) field.
    mutating func dictionary(_ name: String, required: Bool = false) -> JSONObject? {
        guard let (key, value) = raw(name, aliases: [], required: required) else { return nil }
        if value.isNull, !required { return nil }
        guard let object = value.objectValue else {
            issues.append(.dictType(.body, key, input: value))
            return nil
        }
        return object
    }

    /// Any JSON value (`Any` fields such as a column default).
    mutating func any(_ name: String) -> JSONValue? {
        raw(name, aliases: [], required: false)?.1
    }

    /// Adds a custom issue (pydantic `field_validator` failures).
    mutating func fail(_ issue: ValidationIssue) {
        issues.append(issue)
    }

    /// Flags every field no read consumed, as `extra='forbid'` models do.
    mutating func forbidExtraFields() {
        guard isObject else { return }
        for (key, value) in object where !consumed.contains(key) {
            issues.append(.extraForbidden(key, input: value))
        }
    }

    /// Throws the collected issues as one 422.
    func validate() throws(APIError) {
        if !issues.isEmpty {
            throw APIError.validation(issues)
        }
    }
}
