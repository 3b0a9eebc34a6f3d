import Foundation
import SelfDBCodegen
import Testing

@Suite struct OutputWriterTests {
    @Test func writesOnlyWhenContentChanges() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-writer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = GeneratedFile(name: "a.generated.swift", contents: "let a = 1\n")
        #expect(try OutputWriter.write(file, to: directory) == .written)

        let url = directory.appendingPathComponent(file.name)
        let old = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
        #expect(try OutputWriter.write(file, to: directory) == .unchanged)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect(attributes[.modificationDate] as? Date == old, "an unchanged file must keep its date so nothing recompiles")

        let changed = GeneratedFile(name: file.name, contents: "let a = 2\n")
        #expect(try OutputWriter.write(changed, to: directory) == .written)
        #expect(try String(contentsOf: url, encoding: .utf8) == "let a = 2\n")
    }
}
