import EmulatorSupport

/// One entry of a FastAPI/pydantic 422 `detail` list: `{"type","loc","msg","input","ctx"?}`.
struct ValidationIssue: Error, Sendable, Equatable {
    /// Where the bad value lives: `body`, `query` or `path`, then field names.
    enum Location: String, Sendable {
        case body, query, path
    }

    var type: String
    var loc: [JSONValue]
    var msg: String
    var input: JSONValue
    var ctx: JSONObject?

    var json: JSONValue {
        var object: JSONObject = JSONObject([
            ("type", .string(type)),
            ("loc", .array(loc)),
            ("msg", .string(msg)),
            ("input", input),
        ])
        if let ctx {
            object["ctx"] = .object(ctx)
        }
        return .object(object)
    }

    static func at(_ location: Location, _ field: String?) -> [JSONValue] {
        var loc: [JSONValue] = [.string(location.rawValue)]
        if let field {
            loc.append(.string(field))
        }
        return loc
    }

    static func missing(_ location: Location, _ field: String?) -> ValidationIssue {
        ValidationIssue(type: "missing", loc: at(location, field), msg: "Field required", input: .null)
    }

    static func extraForbidden(_ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "extra_forbidden",
            loc: at(.body, field),
            msg: "Extra inputs are not permitted",
            input: input
        )
    }

    static func stringType(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(type: "string_type", loc: at(location, field), msg: "Input should be a valid string", input: input)
    }

    static func boolType(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(type: "bool_type", loc: at(location, field), msg: "Input should be a valid boolean", input: input)
    }

    /// Lax mode's wording for a value that is not one of the accepted spellings.
    static func boolParsing(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "bool_parsing",
            loc: at(location, field),
            msg: "Input should be a valid boolean, unable to interpret input",
            input: input
        )
    }

    static func intParsing(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "int_parsing",
            loc: at(location, field),
            msg: "Input should be a valid integer, unable to parse string as an integer",
            input: input
        )
    }

    static func dictType(_ location: Location, _ field: String?, input: JSONValue) -> ValidationIssue {
        ValidationIssue(type: "dict_type", loc: at(location, field), msg: "Input should be a valid dictionary", input: input)
    }

    static func modelType(input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "model_attributes_type",
            loc: at(.body, nil),
            msg: "Input should be a valid dictionary or object to extract fields from",
            input: input
        )
    }

    static func greaterThanOrEqual(_ location: Location, _ field: String, limit: Int64, input: JSONValue)
        -> ValidationIssue
    {
        ValidationIssue(
            type: "greater_than_equal",
            loc: at(location, field),
            msg: "Input should be greater than or equal to \(limit)",
            input: input,
            ctx: JSONObject([("ge", .int(limit))])
        )
    }

    static func lessThanOrEqual(_ location: Location, _ field: String, limit: Int64, input: JSONValue)
        -> ValidationIssue
    {
        ValidationIssue(
            type: "less_than_equal",
            loc: at(location, field),
            msg: "Input should be less than or equal to \(limit)",
            input: input,
            ctx: JSONObject([("le", .int(limit))])
        )
    }

    static func tooShort(_ location: Location, _ field: String, minimum: Int, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "string_too_short",
            loc: at(location, field),
            msg: "String should have at least \(minimum) character\(minimum == 1 ? "" : "s")",
            input: input,
            ctx: JSONObject([("min_length", .int(Int64(minimum)))])
        )
    }

    /// A minimum length that pydantic checks in a validator of its own rather than on the
    /// string schema (`min_length_validator`): it words it as a collection's, `too_short` with
    /// `field_type` "Value" and the length found.
    static func tooShortValue(_ location: Location, _ field: String, minimum: Int, actual: Int, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "too_short",
            loc: at(location, field),
            msg: "Value should have at least \(minimum) item\(minimum == 1 ? "" : "s") after validation, not \(actual)",
            input: input,
            ctx: JSONObject([("field_type", "Value"), ("min_length", .int(Int64(minimum))), ("actual_length", .int(Int64(actual)))])
        )
    }

    static func tooLong(_ location: Location, _ field: String, maximum: Int, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "string_too_long",
            loc: at(location, field),
            msg: "String should have at most \(maximum) character\(maximum == 1 ? "" : "s")",
            input: input,
            ctx: JSONObject([("max_length", .int(Int64(maximum)))])
        )
    }

    static func patternMismatch(_ location: Location, _ field: String, pattern: String, input: JSONValue)
        -> ValidationIssue
    {
        ValidationIssue(
            type: "string_pattern_mismatch",
            loc: at(location, field),
            msg: "String should match pattern '\(pattern)'",
            input: input,
            ctx: JSONObject([("pattern", .string(pattern))])
        )
    }

    static func literal(_ location: Location, _ field: String, allowed: [String], input: JSONValue)
        -> ValidationIssue
    {
        let quoted = allowed.map { "'\($0)'" }
        let expected: String
        if quoted.count > 1, let last = quoted.last {
            expected = quoted.dropLast().joined(separator: ", ") + " or " + last
        } else {
            expected = quoted.first ?? ""
        }
        return ValidationIssue(
            type: "literal_error",
            loc: at(location, field),
            msg: "Input should be \(expected)",
            input: input,
            ctx: JSONObject([("expected", .string(expected))])
        )
    }

    /// `error` is the `uuid` crate's reason (``UUIDParsing``), which pydantic repeats in `msg`.
    static func uuidParsing(_ location: Location, _ field: String, error: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "uuid_parsing",
            loc: at(location, field),
            msg: "Input should be a valid UUID, \(error)",
            input: input,
            ctx: JSONObject([("error", .string(error))])
        )
    }

    /// A validator's `ValueError`. FastAPI encodes the exception object itself as `ctx.error`,
    /// which comes out as `{}` (checked against SelfDB v0.0.5).
    static func valueError(_ location: Location, _ field: String?, message: String, input: JSONValue)
        -> ValidationIssue
    {
        ValidationIssue(
            type: "value_error",
            loc: at(location, field),
            msg: "Value error, \(message)",
            input: input,
            ctx: JSONObject([("error", .object(JSONObject()))])
        )
    }

    /// pydantic's `EmailStr` failure: `value_error` without the `Value error, ` prefix, the
    /// email-validator's reason in `ctx.reason`.
    static func invalidEmail(_ field: String, reason: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "value_error",
            loc: at(.body, field),
            msg: "value is not a valid email address: \(reason)",
            input: input,
            ctx: JSONObject([("reason", .string(reason))])
        )
    }

    static func jsonInvalid(offset: Int, reason: String) -> ValidationIssue {
        ValidationIssue(
            type: "json_invalid",
            loc: [.string("body"), .int(Int64(offset))],
            msg: "JSON decode error",
            input: .object(JSONObject()),
            ctx: JSONObject([("error", .string(reason))])
        )
    }
}

extension ValidationIssue {
    static func intType(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(type: "int_type", loc: at(location, field), msg: "Input should be a valid integer", input: input)
    }

    static func intFromFloat(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(
            type: "int_from_float",
            loc: at(location, field),
            msg: "Input should be a valid integer, got a number with a fractional part",
            input: input
        )
    }

    static func listType(_ location: Location, _ field: String, input: JSONValue) -> ValidationIssue {
        ValidationIssue(type: "list_type", loc: at(location, field), msg: "Input should be a valid list", input: input)
    }

    /// A bad member of a list or dictionary field: `loc` goes one level deeper.
    func nested(under key: JSONValue) -> ValidationIssue {
        var issue = self
        issue.loc.append(key)
        return issue
    }
}
