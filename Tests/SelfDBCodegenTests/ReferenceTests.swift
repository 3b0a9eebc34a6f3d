import Foundation
import SelfDBCodegen
import SelfDBSpec
import Testing

/// The full generated output for every spec in the repository is kept under
/// `Tests/SelfDBCodegenTests/Reference/`, so any change to the generator or a spec shows up
/// as a diff in review. Run with `SELFDB_RECORD_REFERENCE=1` to accept a change.
@Suite struct ReferenceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let referenceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference")

    /// Every spec the repository ships, relative to the package root.
    static let specs = ["Spec/selfdb.yaml", "Spec/synchro.yaml", "Tests/GeneratedCodeTests/app-models.yaml", "Tests/GeneratedCodeTests/notes-api.yaml"]

    @Test(arguments: specs)
    func generatedOutputMatchesReference(_ relativePath: String) throws {
        let output = SpecCompiler.compile(contentsOf: Self.packageRoot.appendingPathComponent(relativePath).path, displayPath: relativePath)
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics.map(\.description))")
        let spec = try #require(output.spec)
        for file in CodeGenerator.generate(spec, displayPath: relativePath) {
            try compare(file)
        }
    }

    func compare(_ file: GeneratedFile) throws {
        let referenceURL = Self.referenceDirectory.appendingPathComponent(file.name)
        if ProcessInfo.processInfo.environment["SELFDB_RECORD_REFERENCE"] == "1" {
            try OutputWriter.write(file, to: Self.referenceDirectory)
            return
        }
        let reference = try String(contentsOf: referenceURL, encoding: .utf8)
        if reference != file.contents {
            let expected = reference.split(separator: "\n", omittingEmptySubsequences: false)
            let actual = file.contents.split(separator: "\n", omittingEmptySubsequences: false)
            let line = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(expected.count, actual.count)
            let want = line < expected.count ? String(expected[line]) : "<end of file>"
            let got = line < actual.count ? String(actual[line]) : "<end of file>"
            Issue.record("\(file.name) differs from its reference at line \(line + 1):\n  reference: \(want)\n  generated: \(got)\nRun with SELFDB_RECORD_REFERENCE=1 to accept the change.")
        }
    }

    @Test func everyReferenceFileHasASpec() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.referenceDirectory.path).filter { $0.hasSuffix(".swift") }
        let expected = Set(Self.specs.flatMap(CodeGenerator.outputNames(forSpecAt:)))
        #expect(Set(names) == expected)
    }

    @Test func generationIsDeterministic() throws {
        let path = Self.packageRoot.appendingPathComponent("Spec/selfdb.yaml").path
        let first = try #require(SpecCompiler.compile(contentsOf: path, displayPath: "Spec/selfdb.yaml").spec)
        let second = try #require(SpecCompiler.compile(contentsOf: path, displayPath: "Spec/selfdb.yaml").spec)
        #expect(CodeGenerator.generate(first) == CodeGenerator.generate(second))
    }
}
