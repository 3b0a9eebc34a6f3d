import Foundation
import Testing

@testable import SelfDBSpec

/// Every file in `Fixtures/Broken` is a small spec with one mistake and, at its top, the
/// diagnostics the compiler must report for it, one `# expect: LINE:COL: severity: MESSAGE`
/// comment line each, in the order the compiler reports them (sorted by location).
///
/// The fixtures are read from the source tree (found via `#filePath`), not bundled as
/// SwiftPM resources, so adding a case is adding a file.
@Suite("Broken spec corpus")
struct BrokenSpecCorpusTests {
    static let fixtureDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Broken")

    static let expectPrefix = "# expect: "

    /// The fixture file names, sorted so the test list is stable.
    static let fixtureNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtureDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    static func text(of name: String) throws -> String {
        let data = try Data(contentsOf: fixtureDirectory.appendingPathComponent(name))
        return try #require(String(data: data, encoding: .utf8), "\(name) is not UTF-8")
    }

    /// The `# expect:` lines at the top of a fixture, without the prefix.
    static func expectations(in text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
            .filter { $0.hasPrefix(expectPrefix) }
            .map { String($0.dropFirst(expectPrefix.count)) }
    }

    @Test("the fixture produces exactly the expected diagnostics", arguments: fixtureNames)
    func fixture(_ name: String) throws {
        let text = try Self.text(of: name)
        let expected = Self.expectations(in: text)
        let output = SpecCompiler.compile(text, file: name)
        for diagnostic in output.diagnostics {
            #expect(diagnostic.location.file == name, "\(diagnostic) names another file")
        }
        let actual = output.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.severity.rawValue): \($0.message)" }
        #expect(
            actual == expected,
            """
            \(name): the compiler reported
            \(actual.map { Self.expectPrefix + $0 }.joined(separator: "\n"))
            but the fixture expects
            \(expected.map { Self.expectPrefix + $0 }.joined(separator: "\n"))
            """
        )
        if expected.contains(where: { $0.contains(": error: ") }) {
            #expect(!output.isValid, "\(name) expects errors but the output is valid")
        }
    }

    @Test("the corpus has at least 40 fixtures, each with an expectation")
    func corpusIsComplete() throws {
        #expect(Self.fixtureNames.count >= 40, "only \(Self.fixtureNames.count) fixtures in \(Self.fixtureDirectory.path)")
        for name in Self.fixtureNames {
            let text = try Self.text(of: name)
            let expected = Self.expectations(in: text)
            #expect(!expected.isEmpty, "\(name) has no '# expect:' line")
            for line in expected {
                let shape = /^\d+:\d+: (error|warning): .+$/
                #expect(line.wholeMatch(of: shape) != nil, "\(name): malformed expectation '\(line)'")
            }
        }
    }
}
