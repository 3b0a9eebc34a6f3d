import Foundation
import SelfDBRuntime
import Testing

@testable import Synchro

/// A protocol-2 push body is written straight from the changes (`MutationPushBody`): the same
/// bytes as the generated `MutationPushRequest`, made of `ProtocolTwoConversions.mutation`'s
/// mutations, encoded as the API client encodes it.
@Suite("Protocol 2: push bodies written directly")
struct MutationPushBodyTests {
    static func column(_ name: String, _ type: LogicalType = .string, nullable: Bool = true, key: Bool = false) -> SyncColumn {
        SyncColumn(name: name, dbType: "text", logicalType: type, nullable: nullable, isPrimaryKey: key)
    }

    static let schema: LocalSchema? = try? LocalSchema(
        version: 7,
        hash: "h\"ash",
        tables: [
            SyncTable(
                tableName: "tasks",
                pushPolicy: .ownerOnly,
                primaryKey: ["id"],
                columns: [
                    column("id", key: true), column("updated_at"), column("deleted_at"), column("title", nullable: false),
                    column("notes"), column("done", .boolean), column("priority", .int), column("score", .float),
                    column("Zeta"), column("été"), column("meta", .json),
                ]
            ),
            SyncTable(
                tableName: "comments",
                pushPolicy: .ownerOnly,
                primaryKey: ["comment_key"],
                columns: [column("comment_key", key: true), column("updated_at"), column("deleted_at"), column("body")]
            ),
        ]
    )

    static func change(_ table: String, _ id: String, _ operation: PushOperation, base: String? = nil, _ data: [String: JSONValue]?) -> OutgoingChange {
        let pending = PendingChange(table: table, recordID: id, operation: operation.rawValue, base: base, clientUpdatedAt: "2026-01-01T00:00:00.000Z", seq: 1)
        let change = PushChange(id: id, tableName: table, operation: operation, data: data, clientUpdatedAt: pending.clientUpdatedAt, baseUpdatedAt: base)
        return OutgoingChange(pending: pending, change: change)
    }

    static let changes: [OutgoingChange] = [
        change(
            "tasks",
            "a",
            .create,
            [
                "id": "a", "updated_at": "2026-01-01T00:00:00.000Z", "deleted_at": nil, "title": "line\nbreak \"quoted\" \\ été 😀",
                "notes": nil, "done": .bool(true), "priority": .integer(-3), "score": .number(2.5), "Zeta": "Z", "été": "é",
                "meta": .object(["b": .array([.integer(1), .null]), "a": .string("x")]),
            ]
        ),
        // An update sends the nulls of columns the server lets be null, not of the others.
        change("tasks", "b", .update, base: "2025-12-31T23:59:59.000Z", ["id": "b", "title": nil, "notes": nil, "done": .bool(false)]),
        change("tasks", "c", .delete, base: "2025-12-31T23:59:59.000Z", nil),
        // A name the table does not have takes the general order.
        change("tasks", "d", .create, ["id": "d", "title": "t", "unknown": .integer(1), "aaa": "first"]),
        change("comments", "k1", .create, ["comment_key": "k1", "body": "hello"]),
        change("tasks", "e", .update, [:]),
    ]

    @Test func writesTheBytesTheEncoderWrites() throws {
        let schema = try #require(Self.schema)
        let sent = Self.changes.enumerated().map { (id: "m\($0.offset)", outgoing: $0.element) }
        let request = MutationPushRequest(
            clientId: "client \"1\"",
            batchId: "batch",
            schema: SchemaRef(version: schema.version, hash: schema.hash),
            mutations: sent.map { ProtocolTwoConversions.mutation($0.outgoing, id: $0.id, schema: schema) }
        )
        let expected = try JSONTreeEncoder.encode(request).serialized()
        let writer = MutationPushBody(schema: schema)
        let written = try writer.json(clientID: "client \"1\"", batchID: "batch", sent: sent)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        // The same writer again (its column orders made once) and an empty batch.
        #expect(try writer.json(clientID: "client \"1\"", batchID: "batch", sent: sent) == expected)
        let empty = MutationPushRequest(clientId: "c", batchId: "b", schema: SchemaRef(version: schema.version, hash: schema.hash), mutations: [])
        #expect(try writer.json(clientID: "c", batchID: "b", sent: []) == JSONTreeEncoder.encode(empty).serialized())
    }

    /// Answers are matched to their changes at their place when the server keeps the order
    /// sent, and by mutation id when it does not; an answer to nothing sent is dropped.
    @Test func answersFindTheirChangesInOrderOrNot() throws {
        let schema = try #require(Self.schema)
        let sent = Self.changes.prefix(3).enumerated().map { (id: "m\($0.offset)", outgoing: $0.element) }
        func accepted(_ id: String, _ table: String = "tasks") -> AcceptedMutation {
            AcceptedMutation(mutationId: id, table: table, pk: [:], status: .applied, serverRow: ["updated_at": .string("u-\(id)")], serverVersion: "v-\(id)")
        }
        let rejection = RejectedMutation(mutationId: "m0", table: "tasks", pk: [:], status: .rejectedTerminal, code: .policyRejected, message: "no")
        for answers in [["m0", "m1", "m2"], ["m2", "m0", "m1"], ["m1", "unknown", "m2"]] {
            let response = MutationPushResponse(serverTime: Date(), accepted: answers.map { accepted($0) }, rejected: answers.contains("m0") ? [] : [rejection])
            let settled = ProtocolTwoConversions.response(response, sent: sent, schema: schema)
            let expected = answers.filter { $0 != "unknown" }.map { id in sent.first { $0.id == id }?.outgoing.change.id }
            #expect(settled.accepted.map(\.id) == expected.compactMap { $0 })
            #expect(settled.accepted.map(\.serverUpdatedAt) == answers.filter { $0 != "unknown" }.map { "u-\($0)" })
            #expect(settled.rejected.map(\.id) == (answers.contains("m0") ? [] : ["a"]))
        }
    }

    @Test func refusesANumberJSONCannotHold() throws {
        let schema = try #require(Self.schema)
        let writer = MutationPushBody(schema: schema)
        let change = Self.change("tasks", "n", .create, ["id": "n", "title": "t", "score": .number(.infinity)])
        #expect(throws: EncodingError.self) { try writer.json(clientID: "c", batchID: "b", sent: [(id: "m", outgoing: change)]) }
    }
}
