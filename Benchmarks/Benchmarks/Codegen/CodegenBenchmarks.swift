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
}
