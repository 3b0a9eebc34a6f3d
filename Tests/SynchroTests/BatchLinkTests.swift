import Foundation
import SelfDBRuntime
import Testing

@testable import Synchro

/// A push batch goes out before the answer to the one before only when neither names a
/// record of the other (`OutgoingChange.linked`): protocol 2 says nothing of parents.
@Suite("Push batches that name each other's records")
struct BatchLinkTests {
    static func change(_ table: String, _ id: String, _ data: [String: JSONValue]?) -> OutgoingChange {
        let pending = PendingChange(table: table, recordID: id, operation: data == nil ? "delete" : "create", base: nil, clientUpdatedAt: "2026-01-01T00:00:00.000Z", seq: 1)
        let change = PushChange(id: id, tableName: table, operation: data == nil ? .delete : .create, data: data, clientUpdatedAt: pending.clientUpdatedAt)
        return OutgoingChange(pending: pending, change: change)
    }

    static let task = "5f0c3c8e-8d0e-4a56-9a43-6f4c1f6b2a10"
    static let document = "doc-7"
    static let tasks = [Self.change("tasks", task, ["id": .string(task), "title": .string("a task")])]
    static let documents = [Self.change("documents", document, ["id": .string(document), "title": .string("a document")])]

    @Test func aChildNamingItsParentIsLinkedEitherWayRound() {
        let comments = [Self.change("comments", "c1", ["id": .string("c1"), "task_id": .string(Self.task)])]
        #expect(OutgoingChange.linked(comments, Self.tasks))
        #expect(OutgoingChange.linked(Self.tasks, comments))
    }

    @Test func aKeyInAnotherCaseStillLinks() {
        let comments = [Self.change("comments", "c1", ["task_id": .string(Self.task.uppercased())])]
        #expect(OutgoingChange.linked(comments, Self.tasks))
    }

    /// A document's scopes come from its members: the members' batch names the document of
    /// the batch after it.
    @Test func membersBeforeTheirDocumentAreLinked() {
        let members = [Self.change("document_members", "m1", ["id": .string("m1"), "document_id": .string(Self.document), "user_id": .string("u1")])]
        #expect(OutgoingChange.linked(Self.documents, members))
    }

    @Test func unrelatedBatchesAreNotLinked() {
        let others = [
            Self.change("tasks", "other", ["id": .string("other"), "title": .string(Self.task + " and more"), "owner": .string("u1"), "done": .bool(true)]),
            Self.change("tasks", "gone", nil),
        ]
        #expect(!OutgoingChange.linked(others, Self.tasks))
        #expect(!OutgoingChange.linked(others, Self.documents))
        #expect(!OutgoingChange.linked([], Self.tasks))
    }
}
