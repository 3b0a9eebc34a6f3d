import Foundation
import SelfDBTestSupport
import Testing

@testable import SelfDBSpec

/// Mutates a spec text in the ways people (and tools) break YAML: deleted, duplicated and
/// swapped lines, wrong names, truncation, stray bytes, indentation slips and YAML syntax
/// where a plain value was.
struct SpecMutator {
    var random: SplitMix64

    static let typeNames = [
        "String", "Int", "Int64", "Double", "Bool", "Date", "UUID", "URL", "Bytes", "JSON",
        "UserRead", "UserRole", "TableRead", "SortDirection", "TodoItem", "FileResponse",
        "String?", "[String]", "[String: JSON]", "[[Int]]?", "Data", "class", "9Lives", "Self",
        "[String", "Int??", "[Int: String]", "Foo Bar", "uuid", "text", "txt", "]", "?",
    ]

    static let yamlJunk = [
        "[", "]", "{", "}", "&anchor", "*alias", "&a [*a]", "!!binary", "!!binary aGVsbG8=", "!custom x",
        "|", ">", "|-\n  folded", "\"", "'", "\"unterminated", "? complex", "- item", "-", ":", "::",
        "~", "null", "", " ", "#", "%TAG ! x", "@", "`", "<<: *alias", "{ a: 1, a: 2 }", "[1, [2, [3]]]",
        "\"\\u00e9\\t\"", "'it''s'", "!!int 12", "!!map {}", "0x1F", "1e400", "-.inf", ".nan", "yes", "no",
        "{ type: [String] }", "{ in: body }", "{ type: Nope, flatten: true }", "/x/{y...}/z", "{a...}",
        String(repeating: "x", count: 300), String(repeating: "[", count: 40),
    ]

    static let insertions: [[UInt8]] = [
        [0x00], [0x01], [0x07], [0x08], [0x09], [0x0B], [0x0C], [0x0D], [0x0A], [0x1B], [0x7F],
        Array("é".utf8), Array("日本".utf8), Array("🚀".utf8), Array("\u{2028}".utf8), Array("\u{2029}".utf8),
        Array("\u{FEFF}".utf8), Array("\u{0301}".utf8), Array("\u{85}".utf8), Array("\u{FFFE}".utf8),
        [0xC3], [0xFF], [0xE2, 0x80], [0xF0, 0x9F, 0x9A],
        Array(": ".utf8), Array("- ".utf8), Array("#".utf8), Array("&".utf8), Array("*".utf8), Array("!".utf8),
        Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8), Array("'".utf8),
        Array("|".utf8), Array(">".utf8), Array("%".utf8), Array("@".utf8), Array("---\n".utf8), Array("...\n".utf8),
        Array("\r\n".utf8), Array("\t\t".utf8), Array("   ".utf8),
    ]

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func int(_ range: Range<Int>) -> Int {
        range.isEmpty ? range.lowerBound : Int.random(in: range, using: &random)
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[int(0..<items.count)]
    }

    mutating func randomWord() -> String {
        let alphabets = ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", "_-.$ /{}?", "éßΩ日🚀"]
        let length = int(1..<13)
        var word = ""
        for _ in 0..<length {
            let alphabet = Array(pick(alphabets))
            word.append(pick(alphabet))
        }
        return word
    }

    /// Applies one random mutation and says what it did.
    mutating func mutate(_ text: String) -> (text: String, description: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let lineIndex = int(0..<max(1, lines.count))
        switch int(0..<10) {
        case 0:
            guard !lines.isEmpty else { return (text, "nothing to delete") }
            lines.remove(at: lineIndex)
            return (lines.joined(separator: "\n"), "delete line \(lineIndex + 1)")
        case 1:
            guard !lines.isEmpty else { return (text, "nothing to duplicate") }
            let target = int(0..<(lines.count + 1))
            lines.insert(lines[lineIndex], at: target)
            return (lines.joined(separator: "\n"), "duplicate line \(lineIndex + 1) before line \(target + 1)")
        case 2:
            guard !lines.isEmpty else { return (text, "nothing to swap") }
            let other = int(0..<lines.count)
            lines.swapAt(lineIndex, other)
            return (lines.joined(separator: "\n"), "swap lines \(lineIndex + 1) and \(other + 1)")
        case 3:
            return replaceName(in: text)
        case 4:
            let bytes = Array(text.utf8)
            let cut = int(0..<(bytes.count + 1))
            return (String(decoding: bytes.prefix(cut), as: UTF8.self), "truncate at byte \(cut)")
        case 5:
            var bytes = Array(text.utf8)
            let position = int(0..<(bytes.count + 1))
            let inserted = int(0..<4) == 0 ? (0..<int(1..<6)).map { _ in UInt8(truncatingIfNeeded: int(0..<256)) } : pick(Self.insertions)
            bytes.insert(contentsOf: inserted, at: position)
            return (String(decoding: bytes, as: UTF8.self), "insert bytes \(inserted) at byte \(position)")
        case 6:
            guard !lines.isEmpty else { return (text, "nothing to indent") }
            let line = lines[lineIndex]
            let leading = line.prefix { $0 == " " }.count
            let description: String
            switch int(0..<4) {
            case 0:
                let added = int(1..<4)
                lines[lineIndex] = String(repeating: " ", count: added) + line
                description = "indent line \(lineIndex + 1) by \(added)"
            case 1:
                let removed = min(leading, int(1..<4))
                lines[lineIndex] = String(line.dropFirst(removed))
                description = "outdent line \(lineIndex + 1) by \(removed)"
            case 2:
                lines[lineIndex] = String(repeating: "\t", count: max(1, leading / 2)) + String(line.dropFirst(leading))
                description = "indent line \(lineIndex + 1) with tabs"
            default:
                lines[lineIndex] = "\t" + line
                description = "prefix line \(lineIndex + 1) with a tab"
            }
            return (lines.joined(separator: "\n"), description)
        case 7, 8:
            return replaceScalar(in: &lines, at: lineIndex)
        default:
            // Replace a key: the name before the first ':' of a line.
            guard !lines.isEmpty, let colon = lines[lineIndex].firstIndex(of: ":") else { return (text, "no key on line \(lineIndex + 1)") }
            let line = lines[lineIndex]
            let leading = line.prefix { $0 == " " || $0 == "-" }
            let replacement = int(0..<2) == 0 ? randomWord() : pick(SpecLoader.topLevelKeys + ["get", "post", "fields", "enum", "alias", "type", "params", "in", "columns", "primaryKey", "table"])
            lines[lineIndex] = String(leading) + replacement + String(line[colon...])
            return (lines.joined(separator: "\n"), "replace the key on line \(lineIndex + 1) with \(replacement.debugDescription)")
        }
    }

    /// Replaces the value after `: ` (or `- `) on a line with YAML syntax or a random word.
    private mutating func replaceScalar(in lines: inout [String], at index: Int) -> (text: String, description: String) {
        guard !lines.isEmpty else { return ("", "nothing to replace") }
        let line = lines[index]
        let replacement = int(0..<3) == 0 ? randomWord() : pick(Self.yamlJunk)
        if let range = line.range(of: ": ") ?? line.range(of: "- ") {
            lines[index] = String(line[..<range.upperBound]) + replacement
        } else {
            lines[index] = line + " " + replacement
        }
        return (lines.joined(separator: "\n"), "replace the value on line \(index + 1) with \(replacement.debugDescription)")
    }

    /// Swaps one occurrence of a capitalised word (usually a type name) for another type
    /// name or a random word.
    private mutating func replaceName(in text: String) -> (text: String, description: String) {
        let matches = text.ranges(of: /\b[A-Z][A-Za-z0-9]*\b/)
        guard !matches.isEmpty else { return (text, "no name to replace") }
        let range = pick(matches)
        let replacement = int(0..<3) == 0 ? randomWord() : pick(Self.typeNames)
        var result = text
        result.replaceSubrange(range, with: replacement)
        return (result, "replace \(String(text[range]).debugDescription) at offset \(text.distance(from: text.startIndex, to: range.lowerBound)) with \(replacement.debugDescription)")
    }
}

@Suite("Robustness")
struct RobustnessTests {
    static let baseSeed: UInt64 = 0x5E1F_DB00_2025_0001

    /// A batch of cases: `cases` mutated copies of one file, seeds from `seedOffset` on.
    struct Source: Sendable, CustomTestStringConvertible {
        var name: String
        var url: URL
        var cases: Range<Int>
        var seedOffset: UInt64
        var testDescription: String { "\(name) cases \(cases.lowerBound)..<\(cases.upperBound)" }
    }

    // selfdb.yaml is 600 lines and takes about 20 ms per compile in a debug build, the
    // to-do table spec under 2 ms: most cases mutate the small one, and each file runs in
    // two batches that run in parallel. About 13 s of CPU in all.
    static let sources = [
        Source(name: "selfdb.yaml", url: RepositoryFiles.selfdbSpec, cases: 0..<200, seedOffset: 0),
        Source(name: "selfdb.yaml", url: RepositoryFiles.selfdbSpec, cases: 200..<400, seedOffset: 0),
        Source(name: "app-models.yaml", url: RepositoryFiles.appModelsSpec, cases: 0..<1_300, seedOffset: 1 << 32),
        Source(name: "app-models.yaml", url: RepositoryFiles.appModelsSpec, cases: 1_300..<2_600, seedOffset: 1 << 32),
    ]

    /// The number of lines of `text` as YAML counts them: CR, LF, CRLF, LS and PS all end a
    /// line (NEL is rejected before YAML sees it).
    static func lineCount(_ text: String) -> Int {
        var count = 1
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": count += 1
            case "\n" where !previousWasCR: count += 1
            case "\u{2028}", "\u{2029}", "\u{85}": count += 1
            default: break
            }
            previousWasCR = scalar == "\r"
        }
        return count
    }

    /// Builds a case from its seed: 1 to 3 mutations of the original text.
    static func mutatedCase(_ original: String, seed: UInt64) -> (text: String, mutations: [String]) {
        var mutator = SpecMutator(seed: seed)
        var text = original
        var mutations: [String] = []
        for _ in 0..<mutator.int(1..<4) {
            let result = mutator.mutate(text)
            text = result.text
            mutations.append(result.description)
        }
        return (text, mutations)
    }

    @Test("the compiler survives mutated specs and reports sane locations", arguments: sources)
    func mutations(_ source: Source) async throws {
        let original = try RepositoryFiles.text(source.url)
        let trace = ProcessInfo.processInfo.environment["SELFDB_ROBUSTNESS_TRACE"] != nil
        print(
            "robustness: \(source.cases.count) mutated copies of \(source.name), seed \(Self.baseSeed) + \(source.seedOffset) + case; set SELFDB_ROBUSTNESS_TRACE=1 to print each case before it runs"
        )
        var failures = 0
        var mutationCount = 0
        var rejected = 0
        let clock = ContinuousClock()
        let start = clock.now
        for index in source.cases {
            // Long CPU-bound loops hand the cooperative pool back now and then, so the suite's
            // async tests (sockets, timeouts) run alongside on a 2-core machine.
            if index % 50 == 0 { await Task.yield() }
            let seed = Self.baseSeed &+ source.seedOffset &+ UInt64(index)
            let (text, mutations) = Self.mutatedCase(original, seed: seed)
            mutationCount += mutations.count
            let context = "\(source.name) case \(index), seed \(seed): \(mutations.joined(separator: "; "))"
            if trace { print(context) }

            let output = SpecCompiler.compile(text, file: source.name)
            if output.diagnostics.hasErrors { rejected += 1 }

            let lines = Self.lineCount(text)
            var problems: [String] = []
            for diagnostic in output.diagnostics {
                let location = diagnostic.location
                if location.file != source.name { problems.append("names file '\(location.file)': \(diagnostic)") }
                if location.line < 1 || location.column < 1 { problems.append("location before the start: \(diagnostic)") }
                if location.line > lines + 1 { problems.append("line past the end (\(lines) lines): \(diagnostic)") }
                if diagnostic.message.isEmpty { problems.append("empty message at \(location)") }
            }
            if output.diagnostics != output.diagnostics.sortedByLocation() {
                problems.append("diagnostics are not sorted by location")
            }
            if !output.diagnostics.hasErrors, output.spec == nil {
                problems.append("no errors but no spec either")
            }
            if !problems.isEmpty {
                failures += 1
                // A handful of reports is enough to reproduce; thousands would bury them.
                if failures <= 10 {
                    Issue.record("\(context)\n\(problems.joined(separator: "\n"))")
                }
            }
        }
        let elapsed = clock.now - start
        print("robustness: \(source.testDescription): \(mutationCount) mutations, \(rejected) specs with errors, \(failures) failing, \(elapsed)")
        #expect(failures == 0, "\(failures) of \(source.cases.count) mutated copies of \(source.name) broke an invariant")
    }

    @Test("the corpus of mutations is large enough and reproducible")
    func mutationsAreDeterministic() throws {
        #expect(Self.sources.map(\.cases.count).reduce(0, +) >= 3_000)
        let original = try RepositoryFiles.text(RepositoryFiles.appModelsSpec)
        for seed in [Self.baseSeed, 1, 42, .max] {
            let first = Self.mutatedCase(original, seed: seed)
            let second = Self.mutatedCase(original, seed: seed)
            #expect(first.text == second.text)
            #expect(first.mutations == second.mutations)
        }
        var generator = SplitMix64(seed: 0)
        // Reference values of SplitMix64 seeded with 0.
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
