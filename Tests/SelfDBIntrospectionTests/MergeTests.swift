import SelfDBSpec
import Testing

@testable import SelfDBIntrospection

/// Server tables taken into an existing spec: only what changed, what the user wrote kept.
@Suite("Introspection: updating a spec")
struct MergeTests {
    static let tasks = ServerTable(
        name: "tasks",
        schema: [
            "id": ServerColumn(type: "uuid", nullable: false),
            "title": ServerColumn(type: "text", nullable: false),
            "user_id": ServerColumn(type: "uuid"),
            "updated_at": ServerColumn(type: "timestamp"),
        ]
    )
    static let notes = ServerTable(name: "notes", schema: ["id": ServerColumn(type: "uuid"), "body": ServerColumn(type: "text")], isPublic: true)

    static func fresh(_ tables: [ServerTable]) throws -> String {
        try Introspector.outcome(for: tables, source: "http://server", existing: nil).text
    }

    static func merged(_ tables: [ServerTable], into text: String) throws -> SpecFileMerger.Result {
        try SpecFileMerger.merge(tables, into: text, file: "s.yaml")
    }

    @Test("run again with nothing changed: the same bytes, whatever the spec's own formatting")
    func nothingChangedSameBytes() throws {
        let text = try Self.fresh([Self.tasks, Self.notes])
        let again = try Self.merged([Self.tasks, Self.notes], into: text)
        #expect(again.text == text)
        #expect(again.changes.isEmpty)
        // Written by hand, in another style, saying the same: untouched too.
        let handWritten = """
            spec: 1   # mine
            tables:
              Task:   # a task
                table: tasks
                columns:
                  id: { type: uuid, primaryKey: true }
                  title:
                    type: text
                    nullable: false
                  user_id: uuid
                  updated_at: datetime
            """
        #expect(try Self.merged([Self.tasks], into: handWritten).text == handWritten)
    }

    @Test("a table the server changed is written again, keeping the model name, descriptions, swift: names and sync:; the others stay as written")
    func changedTableKeepsWhatTheUserWrote() throws {
        let text = """
            spec: 1
            description: Mine.

            tables:
              Job:
                table: tasks
                description: My jobs.
                sync: { owner: user_id }
                columns:
                  id: { type: uuid, primaryKey: true }
                  title: { type: text, nullable: false, swift: heading, description: What to do. }
                  user_id: uuid
                  updated_at: timestamp

              # Notes, public.
              Note:
                table: notes
                public: true
                columns:
                  id: { type: uuid, primaryKey: true }
                  body: text

            endpoints: {}
            """
        var changed = Self.tasks
        changed.schema["done"] = ServerColumn(type: "boolean", nullable: false, defaultValue: .bool(false))
        changed.schema["title"] = ServerColumn(type: "text", nullable: true)
        let result = try Self.merged([changed, Self.notes], into: text)
        #expect(result.changes == ["updated Job (table 'tasks') from the server"])
        #expect(
            result.text == """
                spec: 1
                description: Mine.

                tables:
                  Job:
                    table: tasks
                    description: My jobs.
                    sync: { owner: user_id }
                    columns:
                      id: { type: uuid, primaryKey: true }
                      title: { type: text, swift: heading, description: What to do. }
                      user_id: uuid
                      updated_at: timestamp
                      done: { type: boolean, nullable: false, default: false }

                  # Notes, public.
                  Note:
                    table: notes
                    public: true
                    columns:
                      id: { type: uuid, primaryKey: true }
                      body: text

                endpoints: {}
                """
        )
        // And again: nothing more to do.
        #expect(try Self.merged([changed, Self.notes], into: result.text).text == result.text)
    }

    @Test("a table the server lacks is kept and said; a new one is added at the end of tables:, its name clear of the spec's")
    func missingAndNewTables() throws {
        let text = """
            spec: 1
            tables:
              Note:
                table: old_notes
                columns:
                  id: { type: uuid, primaryKey: true }
            models:
              Task:
                fields:
                  id: UUID
            """
        let result = try Self.merged([Self.notes, Self.tasks], into: text)
        // `Task` is Swift's own type; `Note` is the spec's.
        #expect(result.changes == ["kept Note: the server has no table 'old_notes'", "added table 'notes' as Note2", "added table 'tasks' as TaskRow"])
        #expect(result.text.contains("  Note:\n    table: old_notes\n"))
        #expect(result.text.contains("\n  Note2:\n    table: notes\n"))
        #expect(result.text.contains("\n  TaskRow:\n    table: tasks\n"))
        #expect(result.text.hasSuffix("      user_id: uuid\nmodels:\n  Task:\n    fields:\n      id: UUID"), "the next section as it was")
        let compiled = SpecCompiler.compile(result.text, file: "s.yaml")
        #expect(!compiled.diagnostics.hasErrors, "\(compiled.diagnostics)")
    }

    @Test("a spec with no tables: gets the section; a spec that does not read is refused, not overwritten")
    func noSectionAndUnreadable() throws {
        let result = try Self.merged([Self.notes], into: "spec: 1\ndescription: x\n")
        #expect(result.text.hasPrefix("spec: 1\ndescription: x\n\ntables:\n  Note:\n"))
        #expect(throws: SpecFileMerger.UnreadableSpec.self) { try Self.merged([Self.notes], into: "spec: 1\ntables: [\n") }
    }
}
