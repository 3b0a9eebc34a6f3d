import Foundation
import SelfDBRuntime
import Testing

/// `TodoItem` is generated from `app-models.yaml` by the build-tool plugin, as in an app.
@Suite struct TableModelTests {
    let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF") ?? UUID()

    @Test func schemaComesFromTheSpec() {
        #expect(TodoItem.tableName == "todo_items")
        #expect(TodoItem.primaryKey == .id)
        #expect(TodoItem.isRealtimeEnabled)
        #expect(!TodoItem.isPublic)
        #expect(TodoItem.columns.map(\.name) == ["id", "title", "done", "priority", "due_at", "notes", "user_id"])
        #expect(TodoItem.columns.first { $0.column == .done }?.defaultValue == .bool(false))
        #expect(TodoItem.columns.first { $0.column == .title }?.isNullable == false)
        #expect(TodoItem.Column.dueAt.rawValue == "due_at")
    }

    @Test func rowsRoundTripWithWireNames() throws {
        let item = TodoItem(id: id, title: "Write tests", priority: 2, dueAt: Date(timeIntervalSince1970: 1_700_000_000), notes: ["tags": ["a"]])
        #expect(item.done == false, "the column default applies to new rows")
        let data = try JSONCoding.makeEncoder().encode(item)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["due_at"] as? String == "2023-11-14T22:13:20.000Z")
        #expect(object["dueAt"] == nil)
        let decoded = try JSONCoding.makeDecoder().decode(TodoItem.self, from: data)
        #expect(decoded == item)
    }

    @Test func serverRowsDecodeWithAnyTimestampForm() throws {
        let json = #"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","title":"x","done":true,"priority":null,"due_at":"2024-05-01T10:00:00.123456+00:00","notes":null,"user_id":null,"extra":1}"#
        let row = try JSONCoding.makeDecoder().decode(TodoItem.self, from: Data(json.utf8))
        #expect(row.id == id)
        #expect(row.done == true)
        #expect(row.dueAt == Date(timeIntervalSince1970: 1_714_557_600.123456))
    }

    @Test func keyPathsMapToColumns() {
        #expect(TodoItem.column(for: \TodoItem.dueAt) == .dueAt)
        #expect(TodoItem.column(for: \TodoItem.userId) == .userId)
    }

    @Test func queryBuilderIsImmutableAndTyped() throws {
        let base = TodoItem.query().sort(.dueAt, .asc)
        let second = base.page(2).pageSize(50).search("milk")
        #expect(base.pageNumber == nil, "refining a query leaves the base untouched")
        #expect(
            second.queryItems == [
                QueryItem("page", 2), QueryItem("page_size", 50), QueryItem("search", "milk"),
                QueryItem("sort_by", "due_at"), QueryItem("sort_order", "asc"),
            ]
        )
        try second.validate()
    }

    @Test func filtersTestRows() {
        let query = TodoItem.query().where(\.done, .equals(false)).where(\.priority, .greaterThan(1)).where(\.title, .contains("MILK"))
        #expect(query.filters.map(\.column) == [.done, .priority, .title])
        #expect(query.filters.map(\.condition.operand) == [.bool(false), .integer(1), .string("MILK")])
        #expect(query.matches(TodoItem(id: id, title: "buy milk", done: false, priority: 3)))
        #expect(!query.matches(TodoItem(id: id, title: "buy milk", done: true, priority: 3)))
        #expect(!query.matches(TodoItem(id: id, title: "buy milk", done: false, priority: nil)), "NULL never passes an ordering test")
        #expect(TodoItem.query().where(\.priority, .isNull()).matches(TodoItem(id: id, title: "x")))
    }

    @Test(arguments: [
        (TodoItem.query().page(0), "page must be 1 or more, got 0"),
        (TodoItem.query().pageSize(1001), "page size must be from 1 to 1000, got 1001"),
        (TodoItem.query().pageSize(0), "page size must be from 1 to 1000, got 0"),
        (TodoItem.query().search(String(repeating: "a", count: 101)), "search text must be at most 100 characters, got 101"),
        (TodoItem.query().search("caf\u{E9}"), "search text must be printable ASCII"),
    ])
    func invalidArgumentsFailBeforeAnyRequest(_ query: TableQuery<TodoItem>, _ message: String) {
        #expect(throws: SelfDBError.self) { try query.validate() }
        do {
            try query.validate()
        } catch {
            #expect(error.detail == message)
        }
    }
}
