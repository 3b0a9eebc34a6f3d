import Foundation
import SelfDBRuntime

/// A protocol-2 push batch's body, written straight from the changes.
///
/// The bytes are those ``APIClient/json(_:)`` makes of the ``MutationPushRequest`` whose
/// mutations ``ProtocolTwoConversions/mutation(_:id:schema:)`` gives (members in byte order,
/// `nil` members left out; a test checks the two are the same bytes). Building that request
/// made a filtered copy of every row's dictionary, then a tree of the whole batch that the
/// serialiser sorted member by member: a tenth of the client's time in a push of 10,000 rows.
/// Here each table's column names are sorted once, and each row's values are looked up in that
/// order and written as they go.
struct MutationPushBody {
    private let schema: LocalSchema
    /// Per table: its columns in member order, with whether each may be sent as null in an
    /// update (``ProtocolTwoConversions/mutation(_:id:schema:)``).
    private let columnOrders: [String: [(name: String, nullable: Bool)]]

    init(schema: LocalSchema) {
        self.schema = schema
        columnOrders = Dictionary(
            schema.tables.map { table in
                (table.name, table.columns.map { (name: $0.name, nullable: $0.nullable) }.sorted { JSONValue.keyPrecedes($0.name, $1.name) })
            },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The body of a push of `sent` (each change with its mutation id).
    func json(clientID: String, batchID: String, sent: [(id: String, outgoing: OutgoingChange)]) throws -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(512 * sent.count + 256)
        output.append(contentsOf: #"{"batch_id":"#.utf8)
        JSONValue.write(string: batchID, into: &output)
        output.append(contentsOf: #","client_id":"#.utf8)
        JSONValue.write(string: clientID, into: &output)
        output.append(contentsOf: #","mutations":["#.utf8)
        for (position, change) in sent.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            try write(change.outgoing, id: change.id, into: &output)
        }
        output.append(contentsOf: #"],"schema":{"hash":"#.utf8)
        JSONValue.write(string: schema.hash, into: &output)
        output.append(contentsOf: #","version":"#.utf8)
        output.append(contentsOf: String(schema.version).utf8)
        output.append(contentsOf: "}}".utf8)
        return Data(output)
    }

    /// One mutation: `base_version`, `client_version`, `columns`, `mutation_id`, `op`, `pk`,
    /// `table`, in that (byte) order.
    private func write(_ outgoing: OutgoingChange, id: String, into output: inout [UInt8]) throws {
        let change = outgoing.change
        let operation = ProtocolTwoConversions.operation(of: outgoing)
        output.append(UInt8(ascii: "{"))
        var first = true
        func member(_ name: String) {
            output.append(contentsOf: (first ? "\"" : ",\"").utf8)
            output.append(contentsOf: name.utf8)
            output.append(contentsOf: "\":".utf8)
            first = false
        }
        if let base = change.baseUpdatedAt {
            member("base_version")
            JSONValue.write(string: base, into: &output)
        }
        member("client_version")
        JSONValue.write(string: change.clientUpdatedAt, into: &output)
        if operation != .delete, let data = change.data {
            member("columns")
            try writeColumns(data, of: change.tableName, operation: operation, into: &output)
        }
        member("mutation_id")
        JSONValue.write(string: id, into: &output)
        member("op")
        JSONValue.write(string: operation.rawValue, into: &output)
        member("pk")
        output.append(UInt8(ascii: "{"))
        JSONValue.write(string: schema.table(change.tableName)?.primaryKey ?? "id", into: &output)
        output.append(UInt8(ascii: ":"))
        JSONValue.write(string: change.id, into: &output)
        output.append(UInt8(ascii: "}"))
        member("table")
        JSONValue.write(string: change.tableName, into: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// A row's columns, as ``ProtocolTwoConversions/mutation(_:id:schema:)`` keeps them.
    private func writeColumns(_ data: [String: JSONValue], of table: String, operation: MutationOperation, into output: inout [UInt8]) throws {
        let order = columnOrders[table] ?? []
        var written: [(name: String, value: JSONValue)] = []
        written.reserveCapacity(data.count)
        var found = 0
        for column in order {
            guard let value = data[column.name] else { continue }
            found += 1
            if ProtocolTwoConversions.keeps(value, nullable: column.nullable, in: operation) { written.append((column.name, value)) }
        }
        // A value under a name the table does not have (the local row is read by the table's
        // columns, so none is expected): the general order.
        if found != data.count {
            let nullable = Dictionary(order.map { ($0.name, $0.nullable) }, uniquingKeysWith: { first, _ in first })
            written = data.filter { ProtocolTwoConversions.keeps($0.value, nullable: nullable[$0.key] ?? true, in: operation) }
                .map { (name: $0.key, value: $0.value) }
                .sorted { JSONValue.keyPrecedes($0.name, $1.name) }
        }
        output.append(UInt8(ascii: "{"))
        for (position, column) in written.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.write(string: column.name, into: &output)
            output.append(UInt8(ascii: ":"))
            try column.value.write(into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

}
