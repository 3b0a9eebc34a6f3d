import SelfDBRuntime

// The rows of pull pages, rebuild pages and push answers, read from a parsed tree member by
// member: through `Codable`, each member of each record went through a keyed container, a
// decoder made for it and a generic call, which was half of decoding a page of 1,000 rows.
// These readers take exactly what the generated `init(from:)` takes (a test checks they agree)
// and give up (nil) on anything else: the caller then decodes the whole answer through
// `Codable`, which says what is wrong and where.

extension ChangeRecord {
    /// The record in `value`, or nil where the generated decoding would fail.
    init?(tree value: JSONValue) {
        guard case .object(let record) = value,
            let scope = TreeReading.string(record["scope"]),
            let table = TreeReading.string(record["table"]),
            let op = TreeReading.string(record["op"]),
            let pk = TreeReading.strings(record["pk"]),
            case .some(let row) = TreeReading.optionalObject(record["row"]),
            case .some(let rowChecksum) = TreeReading.optionalInt64(record["row_checksum"]),
            let serverVersion = TreeReading.string(record["server_version"])
        else { return nil }
        self.init(scope: scope, table: table, op: ChangeOperation(rawValue: op), pk: pk, row: row, rowChecksum: rowChecksum, serverVersion: serverVersion)
    }
}

extension RebuildRecord {
    /// The record in `value`, or nil where the generated decoding would fail.
    init?(tree value: JSONValue) {
        guard case .object(let record) = value,
            let table = TreeReading.string(record["table"]),
            let pk = TreeReading.strings(record["pk"]),
            case .some(let row) = TreeReading.optionalObject(record["row"]),
            case .some(let rowChecksum) = TreeReading.optionalInt64(record["row_checksum"]),
            let serverVersion = TreeReading.string(record["server_version"])
        else { return nil }
        self.init(table: table, pk: pk, row: row, rowChecksum: rowChecksum, serverVersion: serverVersion)
    }
}

extension AcceptedMutation {
    /// The answer in `value`, or nil where the generated decoding would fail.
    init?(tree value: JSONValue) {
        guard case .object(let answer) = value,
            let mutationID = TreeReading.string(answer["mutation_id"]),
            let table = TreeReading.string(answer["table"]),
            let pk = TreeReading.strings(answer["pk"]),
            let status = TreeReading.string(answer["status"]),
            case .some(let serverRow) = TreeReading.optionalObject(answer["server_row"]),
            let serverVersion = TreeReading.string(answer["server_version"])
        else { return nil }
        self.init(mutationId: mutationID, table: table, pk: pk, status: MutationStatus(rawValue: status), serverRow: serverRow, serverVersion: serverVersion)
    }
}

/// What ``JSONTreeDecoder`` reads for the member types of the records above; nil where it
/// would throw. (An optional's result is itself optional: `.some(nil)` is a member missing or
/// null, which decodes as nil.)
enum TreeReading {
    /// An array whose every element `read` takes; nil if one is refused.
    static func array<Element>(_ value: JSONValue?, _ read: (JSONValue) -> Element?) -> [Element]? {
        guard case .array(let elements)? = value else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let read = read(element) else { return nil }
            result.append(read)
        }
        return result
    }

    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value else { return nil }
        return text
    }

    /// A `[String: String]`: an object of strings only.
    static func strings(_ value: JSONValue?) -> [String: String]? {
        guard case .object(let object)? = value else { return nil }
        var strings = [String: String](minimumCapacity: object.count)
        for (name, member) in object {
            guard case .string(let text) = member else { return nil }
            strings[name] = text
        }
        return strings
    }

    static func optionalObject(_ value: JSONValue?) -> [String: JSONValue]?? {
        switch value {
        case nil, .null?: .some(nil)
        case .object(let object)?: .some(object)
        default: nil
        }
    }

    /// An `Int64?`: an integer, or a number that is exactly one.
    static func optionalInt64(_ value: JSONValue?) -> Int64?? {
        switch value {
        case nil, .null?: .some(nil)
        case .integer(let integer)?: .some(integer)
        case .number(let number)?: Int64(exactly: number).map { .some($0) }
        default: nil
        }
    }
}
