// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

// Benchmarks live in their own package so the main build never pays for ordo-one/benchmark.
// Run: cd Benchmarks && swift package benchmark
let package = Package(
    name: "selfdb-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CodegenBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SelfDBSpec", package: root),
                .product(name: "SelfDBCodegen", package: root),
            ],
            path: "Benchmarks/Codegen",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ClientBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SelfDB", package: root),
                .product(name: "SelfDBEmulator", package: root),
            ],
            path: "Benchmarks/Client",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
                .plugin(name: "SelfDBCodegenPlugin", package: root),
            ]
        ),
    ]
)
