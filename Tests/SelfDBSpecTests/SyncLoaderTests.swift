import Foundation
import Testing

@testable import SelfDBSpec

@Suite("Sync mapping on tables")
struct SyncLoaderTests {
    static let exampleSpec = RepositoryFiles.root.appendingPathComponent("Spec/Examples/tasks-sync.yaml")

    @Test("the example sync spec compiles cleanly and keeps what it declares")
    func exampleSpec() throws {
        let output = SpecCompiler.compile(try RepositoryFiles.text(Self.exampleSpec), file: "tasks-sync.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let spec = try #require(output.spec)
        let tasks = try #require(spec.tables.first { $0.tableName.value == "tasks" }?.sync)
        #expect(tasks.owner?.value == "user_id")
        #expect(tasks.parent == nil && tasks.parentKey == nil)
        #expect(tasks.updatedAt.value == "updated_at")
        #expect(tasks.deletedAt.value == "deleted_at")
        #expect(tasks.push == .ownerOnly)
        let comments = try #require(spec.tables.first { $0.tableName.value == "comments" }?.sync)
        #expect(comments.owner == nil)
        #expect(comments.parent?.value == "tasks")
        #expect(comments.parentKey?.value == "task_id")
    }

    @Test("explicit timestamp columns and push policy are read with their locations")
    func explicitKeys() throws {
        let text = """
            tables:
              Note:
                table: notes
                sync: { owner: author, updatedAt: changed, deletedAt: removed, push: disabled }
                columns:
                  id: { type: text, primaryKey: true }
                  author: text
                  changed: datetime
                  removed: timestamp
            """
        let output = SpecCompiler.compile(text, file: "notes.yaml")
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics)")
        let sync = try #require(output.spec?.tables.first?.sync)
        #expect(sync.push == .disabled)
        #expect(sync.updatedAt == Located("changed", at: SourceLocation(file: "notes.yaml", line: 4, column: 39)))
        #expect(sync.deletedAt.value == "removed")
        #expect(sync.location == SourceLocation(file: "notes.yaml", line: 4, column: 5))
    }

    @Test("a table without sync has none, and a sync value that is not a mapping is an error")
    func absentAndMalformed() throws {
        let plain = SpecCompiler.compile("tables:\n  Note:\n    columns:\n      id: { type: uuid, primaryKey: true }\n", file: "a.yaml")
        #expect(plain.isValid)
        #expect(plain.spec?.tables.first?.sync == nil)

        let scalar = SpecCompiler.compile(
            "tables:\n  Note:\n    sync: yes\n    columns:\n      id: { type: uuid, primaryKey: true }\n",
            file: "b.yaml"
        )
        #expect(scalar.diagnostics.map(\.description) == ["b.yaml:3:11: error: 'sync' of 'Note' must be a mapping, found a scalar"])
    }
}
