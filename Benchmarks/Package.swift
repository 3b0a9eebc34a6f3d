// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

/// One benchmark executable in `Benchmarks/<folder>`; `specs` when it holds table-model YAML
/// for the code generator.
func benchmark(_ name: String, folder: String, products: [String], targets: [String] = [], specs: Bool = false) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark")] + products.map { .product(name: $0, package: root) }
            + targets.map { .target(name: $0) },
        path: "Benchmarks/\(folder)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")] + (specs ? [.plugin(name: "SelfDBCodegenPlugin", package: root)] : [])
    )
}

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
        benchmark("CodegenBenchmarks", folder: "Codegen", products: ["SelfDBSpec", "SelfDBCodegen"]),
        benchmark("ClientBenchmarks", folder: "Client", products: ["SelfDB", "SelfDBEmulator"], specs: true),
        benchmark("RealtimeBenchmarks", folder: "Realtime", products: ["SelfDB", "SelfDBEmulator"], specs: true),
        benchmark("CacheBenchmarks", folder: "Cache", products: ["SelfDB", "SelfDBCache"], specs: true),
        benchmark("StoreBenchmarks", folder: "Store", products: ["SelfDBStore", "CRDTSQLite"]),
        benchmark("SynchroBenchmarks", folder: "Synchro", products: ["Synchro", "SelfDBEmulator"], targets: ["SynchroBenchmarkSupport"]),
        benchmark("TransportBenchmarks", folder: "Transport", products: ["SelfDBRuntime", "SelfDBEmulator", "SelfDBTesting"]),
        .executableTarget(
            name: "CacheProfile",
            dependencies: [
                .product(name: "SelfDB", package: root), .product(name: "SelfDBCache", package: root), .product(name: "SelfDBStore", package: root), .product(name: "CRDTSQLite", package: root),
            ],
            path: "Profile",
            plugins: [.plugin(name: "SelfDBCodegenPlugin", package: root)]
        ),
        .target(
            name: "SynchroBenchmarkSupport",
            dependencies: [
                .product(name: "Synchro", package: root), .product(name: "SelfDBEmulator", package: root), .product(name: "SelfDBRuntime", package: root),
            ],
            path: "SynchroBenchmarkSupport"
        ),
        // Side-by-side with the official client: Scripts/side-by-side.py runs it.
        .executableTarget(
            name: "SynchroSideBySideDriver",
            dependencies: [.product(name: "Synchro", package: root)],
            path: "SideBySide/Driver"
        ),
        // Uploads and downloads of large files, side by side with curl:
        // Scripts/file-transfer.py runs it.
        .executableTarget(
            name: "FileTransferDriver",
            dependencies: [.product(name: "SelfDB", package: root), .product(name: "SelfDBRuntime", package: root)],
            path: "FileTransfer"
        ),
        .executableTarget(
            name: "SynchroProfile",
            dependencies: ["SynchroBenchmarkSupport", .product(name: "Synchro", package: root)],
            path: "SynchroProfile"
        ),
    ]
)
