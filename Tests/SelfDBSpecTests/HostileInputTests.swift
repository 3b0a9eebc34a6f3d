import Foundation
import Testing

@testable import SelfDBSpec

/// Inputs built to exhaust a YAML reader — alias bombs, deep nesting, huge scalars, very
/// wide documents — each compiled under a watchdog: it must come back with its answer, not
/// merely eventually. (How long each takes is measured by the codegen benchmarks'
/// "Validate hostile spec" cases, never asserted here.)
@Suite("Hostile spec inputs")
struct HostileInputTests {
    /// Far beyond anything these take (milliseconds); only a hang trips it.
    static let watchdog: TimeInterval = 60

    /// Compiles `text` on its own thread and waits at most ``watchdog`` seconds.
    static func compileUnderWatchdog(_ text: String, name: String) -> SpecCompiler.Output? {
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<SpecCompiler.Output?>(nil)
        let thread = Thread {
            result.set(SpecCompiler.compile(text, file: name))
            done.signal()
        }
        // The main thread's stack size, so a deep document is judged by our limits, not by
        // a small default stack.
        thread.stackSize = 8 << 20
        thread.start()
        guard done.wait(timeout: .now() + watchdog) == .success else {
            Issue.record("\(name) did not finish within \(Int(watchdog)) s")
            return nil
        }
        return result.get()
    }

    @Test("every hostile input is answered with a located error", arguments: HostileSpecs.refused)
    func refused(_ input: HostileSpecs.Input) throws {
        let output = try #require(Self.compileUnderWatchdog(input.text, name: "\(input.name).yaml"))
        let first = try #require(output.diagnostics.first, "\(input.name) was accepted")
        #expect(first.severity == .error)
        #expect(first.message.contains(input.expected), "\(input.name): \(first.message)")
        #expect(first.location.line >= 1)
    }

    @Test("large but honest inputs are read in full", arguments: HostileSpecs.accepted)
    func accepted(_ input: HostileSpecs.Input) throws {
        let output = try #require(Self.compileUnderWatchdog(input.text, name: "\(input.name).yaml"))
        #expect(output.isValid, "\(input.name): \(output.diagnostics.map(\.description))")
    }

    @Test func anchorsThatRepeatAreStillExpanded() throws {
        let text = """
            models:
              Page:
                fields: &paged
                  page: Int
                  page_size: Int
                  total: Int
              Other:
                fields: *paged
            """
        let output = SpecCompiler.compile(text, file: "api.yaml")
        #expect(output.isValid, "\(output.diagnostics.map(\.description))")
        guard case .structure(let other)? = output.spec?.models.first(where: { $0.name.value == "Other" })?.kind else {
            Issue.record("Other is not a struct")
            return
        }
        #expect(other.fields.map(\.key.value) == ["page", "page_size", "total"])
    }
}

/// The generated hostile inputs, shared with the codegen benchmarks' hostile cases.
enum HostileSpecs {
    struct Input: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// A part of the first diagnostic's message (for refused inputs).
        var expected: String
        var testDescription: String { name }
    }

    /// `levels` levels of `width` aliases to the level below: width^levels nodes.
    static func aliasBomb(levels: Int, width: Int, asKeys: Bool = false) -> String {
        var lines = ["a0: &a0 [" + Array(repeating: "x", count: width).joined(separator: ", ") + "]"]
        for level in 1...levels {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: width).joined(separator: ", ") + "]")
        }
        if asKeys {
            lines.append("bomb: { ? *a\(levels) : 1, ? *a\(levels) : 2 }")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static var refused: [Input] {
        [
            Input(name: "billion-laughs", text: aliasBomb(levels: 9, width: 10), expected: "aliases may repeat an anchor"),
            Input(name: "aliases-as-keys", text: aliasBomb(levels: 8, width: 10, asKeys: true), expected: "aliases may repeat an anchor"),
            Input(name: "wide-and-shallow-bomb", text: aliasBomb(levels: 3, width: 200), expected: "aliases may repeat an anchor"),
            Input(name: "flow-nesting-10000", text: "x: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), expected: "nests more than 64 levels"),
            Input(name: "mapping-nesting-200", text: (0..<200).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n") + " end\n", expected: "nests more than 64 levels"),
            Input(name: "unclosed-nesting", text: String(repeating: "{a: ", count: 5_000), expected: "levels deep"),
            Input(name: "huge-scalar-as-type", text: "models:\n  Big:\n    fields:\n      x: " + String(repeating: "T", count: 3 << 20) + "\n", expected: "a type expression has at most"),
            Input(name: "huge-name", text: "models:\n  " + String(repeating: "N", count: 3 << 20) + ": { fields: { id: UUID } }\n", expected: "invalid YAML"),
            Input(name: "over-4-MiB", text: "models:\n  Big:\n    description: \"" + String(repeating: "x", count: 5 << 20) + "\"\n", expected: "a spec may have at most"),
        ]
    }

    static var accepted: [Input] {
        let description = String(repeating: "All work and no play. ", count: 150_000)  // 3.3 MB
        let fields = (0..<20_000).map { "      f\($0): Int" }.joined(separator: "\n")
        return [
            Input(name: "huge-description", text: "models:\n  Big:\n    description: \"\(description)\"\n    fields: { id: UUID }\n", expected: ""),
            Input(name: "twenty-thousand-fields", text: "models:\n  Wide:\n    fields:\n" + fields + "\n", expected: ""),
            Input(
                name: "anchor-reused-900-times",
                text: "models:\n" + (0..<900).map { "  M\($0):\n    fields: " + ($0 == 0 ? "&f { a: Int, b: String, c: Bool, d: Date }" : "*f") }.joined(separator: "\n") + "\n",
                expected: ""
            ),
        ]
    }
}

/// A value one thread writes and another reads after a semaphore.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
