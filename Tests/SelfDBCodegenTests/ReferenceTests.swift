import Foundation
import SelfDBCodegen
import SelfDBSpec
import Testing

/// The full generated output for every spec in the repository is kept under version control,
/// so any change to the generator or a spec shows up as a diff in review: our own specs' in the
/// targets that compile it (`Sources/SelfDB/Generated`, `Sources/Synchro/Generated`), the test
/// specs' under `Tests/SelfDBCodegenTests/Reference/`. Run with `SELFDB_RECORD_REFERENCE=1` to
/// accept a change (or `Scripts/generate.sh` for our own specs).
@Suite struct ReferenceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let referenceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference")

    /// Every spec the repository ships, relative to the package root, and where its output is kept.
    static let outputDirectories: [String: URL] = [
        "Spec/selfdb.yaml": packageRoot.appendingPathComponent("Sources/SelfDB/Generated"),
        "Spec/synchro.yaml": packageRoot.appendingPathComponent("Sources/Synchro/Generated"),
        "Spec/synchro-v2.yaml": packageRoot.appendingPathComponent("Sources/Synchro/Generated"),
        "Tests/GeneratedCodeTests/app-models.yaml": referenceDirectory,
        "Tests/GeneratedCodeTests/notes-api.yaml": referenceDirectory,
    ]
    static let specs = outputDirectories.keys.sorted()

    @Test(arguments: specs)
    func generatedOutputMatchesReference(_ relativePath: String) throws {
        let output = SpecCompiler.compile(contentsOf: Self.packageRoot.appendingPathComponent(relativePath).path, displayPath: relativePath)
        #expect(output.diagnostics.isEmpty, "\(output.diagnostics.map(\.description))")
        let spec = try #require(output.spec)
        let directory = try #require(Self.outputDirectories[relativePath])
        let files = CodeGenerator.generate(spec, displayPath: relativePath)
        if ProcessInfo.processInfo.environment["SELFDB_RECORD_REFERENCE"] == "1" {
            for file in files { try OutputWriter.write(file, to: directory) }
            return
        }
        for stale in OutputWriter.staleFiles(files, in: directory) {
            Issue.record(
                "\(directory.lastPathComponent)/\(stale): not what the generator writes from \(relativePath) now. Run Scripts/generate.sh (or SELFDB_RECORD_REFERENCE=1) to accept the change."
            )
        }
    }

    @Test(arguments: Set(outputDirectories.values))
    func everyKeptFileHasASpec(_ directory: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        let specs = Self.outputDirectories.filter { $0.value == directory }.keys
        let expected = Set(specs.flatMap(CodeGenerator.outputNames(forSpecAt:)))
        #expect(Set(names) == expected)
    }

    @Test func generationIsDeterministic() throws {
        let path = Self.packageRoot.appendingPathComponent("Spec/selfdb.yaml").path
        let first = try #require(SpecCompiler.compile(contentsOf: path, displayPath: "Spec/selfdb.yaml").spec)
        let second = try #require(SpecCompiler.compile(contentsOf: path, displayPath: "Spec/selfdb.yaml").spec)
        #expect(CodeGenerator.generate(first) == CodeGenerator.generate(second))
    }
}
