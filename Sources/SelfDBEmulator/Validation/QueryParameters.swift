import EmulatorSupport

/// The query string of a request, decoded the way Starlette decodes it (`+` is a space,
/// percent escapes are UTF-8), with pydantic-style typed reads.
struct QueryParameters: Sendable {
    private(set) var items: [(name: String, value: String)]
    private(set) var issues: [ValidationIssue] = []

    init(rawQuery: String) {
        items = []
        guard !rawQuery.isEmpty else { return }
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(String(parts[0]), plusIsSpace: true)
            let value = parts.count > 1 ? PercentDecoding.decode(String(parts[1]), plusIsSpace: true) : ""
            items.append((name, value))
        }
    }

    /// The last value given for `name` (Starlette's `query_params[name]`).
    subscript(name: String) -> String? {
        items.last { $0.name == name }?.value
    }

    /// Endpoints marked (S) in the contract: any other parameter is a 400.
    func rejectUnknown(allowed: Set<String>) throws(APIError) {
        var unknown: [String] = []
        for item in items where !allowed.contains(item.name) && !unknown.contains(item.name) {
            unknown.append(item.name)
        }
        if !unknown.isEmpty {
            throw APIError.badRequest("Unknown query parameters: \(unknown.joined(separator: ", "))")
        }
    }

    /// An integer parameter with bounds.
    mutating func int(_ name: String, default defaultValue: Int64, minimum: Int64? = nil, maximum: Int64? = nil) -> Int64 {
        guard let text = self[name] else { return defaultValue }
        guard let value = Int64(text.trimmingSpaces) else {
            issues.append(.intParsing(.query, name, input: .string(text)))
            return defaultValue
        }
        if let minimum, value < minimum {
            issues.append(.greaterThanOrEqual(.query, name, limit: minimum, input: .string(text)))
            return defaultValue
        }
        if let maximum, value > maximum {
            issues.append(.lessThanOrEqual(.query, name, limit: maximum, input: .string(text)))
            return defaultValue
        }
        return value
    }

    /// A parameter restricted to a fixed set of values (`Literal[...]`).
    mutating func literal(_ name: String, allowed: [String], default defaultValue: String) -> String {
        guard let text = self[name] else { return defaultValue }
        guard allowed.contains(text) else {
            issues.append(.literal(.query, name, allowed: allowed, input: .string(text)))
            return defaultValue
        }
        return text
    }

    /// The `search` parameter every list endpoint shares: printable ASCII, 100 characters at most.
    /// Trimmed, and nil when blank, unless `trimming` is false (then only the empty text is nil).
    mutating func search(_ name: String = "search", trimming: Bool = true) -> String? {
        guard let text = self[name] else { return nil }
        if text.count > 100 {
            issues.append(.tooLong(.query, name, maximum: 100, input: .string(text)))
            return nil
        }
        if !text.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) {
            issues.append(.patternMismatch(.query, name, pattern: "^[\\x20-\\x7E]*$", input: .string(text)))
            return nil
        }
        let trimmed = trimming ? text.trimmingSpaces : text
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A required or optional free-form string.
    mutating func string(_ name: String, required: Bool = false, maxLength: Int? = nil) -> String? {
        guard let text = self[name] else {
            if required { issues.append(.missing(.query, name)) }
            return nil
        }
        if let maxLength, text.count > maxLength {
            issues.append(.tooLong(.query, name, maximum: maxLength, input: .string(text)))
            return nil
        }
        return text
    }

    /// A UUID parameter, in any spelling pydantic accepts (``UUIDParsing``).
    mutating func uuid(_ name: String, required: Bool) -> String? {
        guard let text = self[name] else {
            if required { issues.append(.missing(.query, name)) }
            return nil
        }
        switch UUIDParsing.parse(text) {
        case .success(let id):
            return id
        case .failure(let failure):
            issues.append(.uuidParsing(.query, name, error: failure.message, input: .string(text)))
            return nil
        }
    }

    /// Throws the collected issues as one 422.
    func validate() throws(APIError) {
        if !issues.isEmpty {
            throw APIError.validation(issues)
        }
    }
}
