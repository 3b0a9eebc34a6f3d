import Benchmark
import Foundation
import SelfDBCodegen
import SelfDBSpec

/// Validate + generate, from text to Swift, for the real SelfDB spec and a synthetic spec of
/// 500 endpoints, 300 models and 100 tables. Targets: under 50 ms and under 1 s, under 100 MB.
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let specs = [
        ("selfdb.yaml", root.appendingPathComponent("../Spec/selfdb.yaml")),
        ("synthetic.yaml", root.appendingPathComponent("Fixtures/synthetic.yaml")),
    ]
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident, .mallocCountTotal],
        maxDuration: .seconds(5),
        maxIterations: 200
    )
    for (name, url) in specs {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            print("missing spec \(url.path)")
            continue
        }
        Benchmark("Validate + generate \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                let output = SpecCompiler.compile(text, file: name)
                guard let spec = output.spec, !output.diagnostics.hasErrors else {
                    fatalError("benchmark spec \(name) is invalid: \(output.diagnostics)")
                }
                blackHole(CodeGenerator.generate(spec))
            }
        }
    }

    // Hostile inputs (issue 13): each must be answered in well under a second and 100 MB.
    // The tests' watchdog (HostileInputTests) proves they return; this says how fast.
    var bomb = ["a0: &a0 [" + Array(repeating: "x", count: 10).joined(separator: ", ") + "]"]
    for level in 1...9 {
        bomb.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
    }
    let hostile = [
        ("billion laughs (1 KB, 10^9 nodes)", bomb.joined(separator: "\n") + "\n"),
        ("flow nesting 10,000 deep", "x: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)),
        ("3 MB type expression", "models:\n  Big:\n    fields:\n      x: " + String(repeating: "T", count: 3 << 20) + "\n"),
        ("3.3 MB description (valid)", "models:\n  Big:\n    description: \"" + String(repeating: "All work and no play. ", count: 150_000) + "\"\n    fields: { id: UUID }\n"),
    ]
    for (name, text) in hostile {
        Benchmark("Validate hostile spec: \(name)", configuration: .init(maxDuration: .seconds(3), maxIterations: 20)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(SpecCompiler.compile(text, file: "hostile.yaml"))
            }
        }
    }
}
