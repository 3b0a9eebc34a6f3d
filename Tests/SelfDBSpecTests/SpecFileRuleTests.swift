import Foundation
import SelfDBSpec
import Testing

/// Which YAML files the plugins and the CLI's directory search take for specs.
@Suite struct SpecFileRuleTests {
    @Test(arguments: [
        "spec: 1\ntables: {}\n",
        "# a comment first\n\nspec: 1\n",
        "description: |\n  text\nspec: 1\n",
        "\u{FEFF}spec: 1\n",
        "spec : 1\n",
        "\"spec\": 1\n",
        "'spec': 1\n",
        "spec:\n",
        "models: {}\r\nspec: 1\r\n",
    ])
    func aTopLevelSpecKeyMakesASpec(_ text: String) {
        #expect(SpecFileRule.declaresSpec(text))
    }

    @Test(arguments: [
        "",
        "server:\n  url: https://example.com\n",
        "specs: 1\n",
        "spec-version: 1\n",
        "config:\n  spec: 1\n",
        "description: |\n  spec: 1\n",
        "# spec: 1\n",
        "tables:\n  Todo: {}\n",
        "spec:1\n",
    ])
    func anythingElseIsNot(_ text: String) {
        #expect(!SpecFileRule.declaresSpec(text))
    }

    @Test func filesAreReadAndNamedLikeSpecs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-rule-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> URL {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        #expect(SpecFileRule.isSpec(try file("models.yaml", "spec: 1\n")))
        #expect(SpecFileRule.isSpec(try file("Models.YML", "spec: 1\n")))
        #expect(!SpecFileRule.isSpec(try file("config.yaml", "server: x\n")))
        #expect(!SpecFileRule.isSpec(try file(".hidden.yaml", "spec: 1\n")))
        #expect(!SpecFileRule.isSpec(try file("notes.json", "spec: 1\n")))
        // Unreadable: handed on, so the generator says why.
        #expect(SpecFileRule.isSpec(directory.appendingPathComponent("gone.yaml")))
    }

    @Test func stemsThatDifferOnlyInCaseClash() {
        let specs = ["A/notes.yaml", "B/Notes.yml", "C/tasks.yaml", "D/todo.yaml", "E/TODO.yaml"].map { URL(fileURLWithPath: "/app/\($0)") }
        let clashes = SpecFileRule.clashingStems(specs)
        #expect(clashes.map(\.stem) == ["notes", "todo"])
        #expect(clashes.first?.specs.map(\.lastPathComponent) == ["notes.yaml", "Notes.yml"])
        #expect(SpecFileRule.clashingStems(Array(specs.prefix(1)) + [specs[2]]).isEmpty)
    }
}
