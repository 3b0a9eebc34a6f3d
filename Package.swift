// swift-tools-version: 6.1
import PackageDescription

// The generator side (SelfDBSpec, SelfDBCodegen, selfdb-codegen, the plugins) depends on
// Yams and ArgumentParser only: it is compiled for the host in every clean build of every
// app that applies the plugin, so its dependency tree must stay small.
let package = Package(
    name: "selfdb-swift",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "SelfDB", targets: ["SelfDB"]),
        .library(name: "SelfDBRuntime", targets: ["SelfDBRuntime"]),
        .library(name: "SelfDBRealtime", targets: ["SelfDBRealtime"]),
        .library(name: "SelfDBStore", targets: ["SelfDBStore"]),
        .library(name: "CRDTSQLite", targets: ["CRDTSQLite"]),
        .library(name: "SelfDBSpec", targets: ["SelfDBSpec"]),
        .library(name: "SelfDBCodegen", targets: ["SelfDBCodegen"]),
        .library(name: "SelfDBEmulator", targets: ["SelfDBEmulator"]),
        .library(name: "SelfDBCache", targets: ["SelfDBCache"]),
        .library(name: "Synchro", targets: ["Synchro"]),
        .library(name: "CachedData", targets: ["CachedData"]),
        // Test helpers for apps: a fault-injecting HTTP proxy for loopback tests.
        .library(name: "SelfDBTesting", targets: ["SelfDBTesting"]),
        // A product of its own so that only apps that use swift-dependencies build it.
        .library(name: "CachedDataDependencies", targets: ["CachedDataDependencies"]),
        .executable(name: "selfdb-codegen", targets: ["selfdb-codegen"]),
        .executable(name: "selfdb-emulator", targets: ["selfdb-emulator"]),
        .plugin(name: "SelfDBCodegenPlugin", targets: ["SelfDBCodegenPlugin"]),
        .plugin(name: "SelfDBCodegenCommand", targets: ["SelfDBCodegenCommand"]),
        .plugin(name: "SelfDBValidateCommand", targets: ["SelfDBValidateCommand"]),
        .plugin(name: "SelfDBIntrospectCommand", targets: ["SelfDBIntrospectCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // The emulator's server stack; only the emulator, the demo and tests link it.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // The realtime client's WebSocket on Linux (URLSession has none there).
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.0"),
        // Only CachedDataDependencies links it (its `Dependencies` product needs no swift-syntax).
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", from: "1.9.0"),
    ],
    targets: [
        // MARK: Generator
        .target(
            name: "SelfDBSpec",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "SelfDBCodegen",
            dependencies: ["SelfDBSpec"]
        ),
        // `selfdb-codegen introspect`: table specs from a running SelfDB. Plain URLSession, so
        // the generator links no client runtime.
        .target(
            name: "SelfDBIntrospection",
            dependencies: ["SelfDBSpec"]
        ),
        // `selfdb-codegen check --openapi`: a spec against a server's OpenAPI document.
        .target(
            name: "SelfDBOpenAPI",
            dependencies: ["SelfDBSpec"]
        ),
        .executableTarget(
            name: "selfdb-codegen",
            dependencies: [
                "SelfDBSpec",
                "SelfDBCodegen",
                "SelfDBIntrospection",
                "SelfDBOpenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .plugin(
            name: "SelfDBCodegenPlugin",
            capability: .buildTool(),
            dependencies: ["selfdb-codegen"]
        ),
        .plugin(
            name: "SelfDBCodegenCommand",
            capability: .command(
                intent: .custom(
                    verb: "selfdb-codegen",
                    description: "Write the generated Swift of each target's SelfDB specs into the target."
                ),
                permissions: [
                    .writeToPackageDirectory(reason: "Writes generated Swift next to the specs when asked to.")
                ]
            ),
            dependencies: ["selfdb-codegen"]
        ),
        .plugin(
            name: "SelfDBIntrospectCommand",
            capability: .command(
                intent: .custom(verb: "selfdb-introspect", description: "Write or update table specs from a running SelfDB server."),
                permissions: [
                    .allowNetworkConnections(scope: .all(ports: []), reason: "Reads the table definitions of the SelfDB server given by --url."),
                    .writeToPackageDirectory(reason: "Writes the spec named by --output."),
                ]
            ),
            dependencies: ["selfdb-codegen"]
        ),
        .plugin(
            name: "SelfDBValidateCommand",
            capability: .command(
                intent: .custom(verb: "selfdb-validate", description: "Check every SelfDB spec of the package's targets.")
            ),
            dependencies: ["selfdb-codegen"]
        ),

        // MARK: Runtime and client
        .target(
            name: "SelfDBRuntime",
            // swift-log: the client, realtime, cache and sync log through a `Logger` the app
            // passes in (a no-op by default). A small package with no dependencies of its own.
            // On Linux, libcurl too (FoundationNetworking's own library): `CurlTransport`.
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]
        ),
        // libcurl's easy interface, for the Linux transport (`CurlTransport`): a module map and
        // typed wrappers of its variadic calls. Not used on Apple platforms.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "SelfDBRealtime",
            dependencies: [
                "SelfDBRuntime",
                // Linux only: Apple platforms use URLSessionWebSocketTask and must not link NIO.
                .product(name: "WSClient", package: "swift-websocket", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
            ]
        ),
        // The client generated from Spec/selfdb.yaml is committed in Sources/SelfDB/Generated
        // (Scripts/generate.sh; CI fails when it is stale): our own library targets apply no
        // build-tool plugin, so an app that uses them gets no "trust this plug-in" prompt and
        // does not compile the generator, Yams and ArgumentParser for the host.
        .target(
            name: "SelfDB",
            dependencies: ["SelfDBRuntime", "SelfDBRealtime", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Local store and CRDT replication
        .target(
            name: "SelfDBStore",
            // GRDB's system-library module for the system sqlite3 (libsqlite3-dev): the same
            // SQLite the cache's GRDB uses, without a second module map for it.
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(
            name: "CRDTSQLite",
            dependencies: ["SelfDBStore", .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),

        // MARK: Offline cache
        .target(
            name: "SelfDBCache",
            dependencies: ["SelfDB", "SelfDBStore", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: CachedData's API on the cache engine
        .target(
            name: "CachedData",
            dependencies: ["SelfDBCache", "SelfDB", "SelfDBRuntime", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "CachedDataDependencies",
            dependencies: ["CachedData", .product(name: "Dependencies", package: "swift-dependencies")]
        ),

        // MARK: Sync client
        // Its protocol client, generated from Spec/synchro.yaml, is committed like SelfDB's.
        .target(
            name: "Synchro",
            dependencies: ["SelfDBRuntime", "GRDBBinding", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]
        ),
        // Binding a row's values straight into a GRDB statement, for the per-row statements of
        // the Synchro client and the emulator's Synchro server. `package` access; not a product.
        .target(
            name: "GRDBBinding",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),

        // MARK: Emulator
        // What the SelfDB emulator and its Synchro server share: the JSON value, SQL identifier
        // quoting, HS256, timestamps, `Locked`. `package` access only; not a product.
        .target(
            name: "EmulatorSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The Synchro sync server the emulator mounts on `/sync/*`: protocol 1 and 2 each in
        // their folder over one store and one conflict rule. Part of the SelfDBEmulator
        // product, which re-exports its few public types; not a product of its own.
        .target(
            name: "SynchroEmulator",
            dependencies: [
                "EmulatorSupport",
                "GRDBBinding",
                "SelfDBSpec",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "SelfDBEmulator",
            dependencies: [
                "EmulatorSupport",
                "SynchroEmulator",
                "SelfDBSpec",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ]
        ),
        .executableTarget(
            name: "selfdb-emulator",
            dependencies: [
                "SelfDBEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Demo
        .executableTarget(
            name: "selfdb-demo",
            dependencies: ["SelfDB", "SelfDBCache", "SelfDBEmulator", "Synchro", .product(name: "Logging", package: "swift-log")],
            plugins: ["SelfDBCodegenPlugin"]
        ),

        // MARK: Test helpers for apps
        // The fault proxy: an HTTP/1.1 proxy on loopback that loses, cuts, resets, holds or
        // refuses what a misbehaving network would. Foundation and POSIX sockets only.
        .target(
            name: "SelfDBTesting",
            dependencies: ["SelfDBRuntime"]
        ),

        // MARK: Tests
        // What several test targets share: the helper-process locator, the log capture, polling;
        // it re-exports SelfDBTesting (the fault proxy, the seedable generator).
        .target(
            name: "SelfDBTestSupport",
            dependencies: ["SelfDBRuntime", "SelfDBTesting", .product(name: "Logging", package: "swift-log")],
            path: "Tests/SelfDBTestSupport"
        ),
        // A server (the emulator, or a real SelfDB named by SELFDB_REAL_URL) behind the fault
        // proxy, with clients through it and straight to it: the flaky-network tests' world.
        .target(
            name: "FlakyServerSupport",
            dependencies: ["SelfDB", "SelfDBEmulator", "SelfDBTestSupport"],
            path: "Tests/FlakyServerSupport"
        ),
        .testTarget(
            name: "SelfDBSpecTests",
            dependencies: ["SelfDBSpec", "SelfDBTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SelfDBOpenAPITests",
            dependencies: ["SelfDBOpenAPI", "SelfDBSpec"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SelfDBIntrospectionTests",
            dependencies: ["SelfDBIntrospection", "SelfDBSpec", "SelfDBCodegen", "SelfDBEmulator", "SelfDBTestSupport", "SelfDBRuntime"]
        ),
        .testTarget(
            name: "SelfDBCodegenTests",
            dependencies: ["SelfDBSpec", "SelfDBCodegen"],
            exclude: ["Reference"]
        ),
        .testTarget(
            name: "SelfDBEmulatorTests",
            dependencies: [
                "SelfDBEmulator",
                "EmulatorSupport",
                "SynchroEmulator",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SelfDBClientTests",
            dependencies: [
                "SelfDB", "SelfDBEmulator", "SelfDBTestSupport", "FlakyServerSupport", "selfdb-session-helper",
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["SelfDBCodegenPlugin"]
        ),
        // A process of an app sharing its session file with others, for the shared-session
        // tests (several run at once; one is killed while it holds the refresh lock).
        .executableTarget(
            name: "selfdb-session-helper",
            dependencies: ["SelfDB", "SelfDBRuntime"],
            path: "Tests/SelfDBSessionHelper"
        ),
        .testTarget(
            name: "SelfDBStoreTests",
            dependencies: ["SelfDBStore"]
        ),
        .testTarget(
            name: "CRDTSQLiteTests",
            dependencies: ["CRDTSQLite", "crdt-crash-writer", "SelfDBTestSupport"],
            // A database written by the first metadata layout, for the migration tests.
            resources: [.copy("Fixtures")]
        ),
        // The process the CRDT crash test kills with SIGKILL mid-stream.
        .executableTarget(
            name: "crdt-crash-writer",
            dependencies: ["CRDTSQLite"],
            path: "Tests/CRDTCrashWriter"
        ),
        .testTarget(
            name: "SelfDBRealtimeTests",
            dependencies: ["SelfDB", "SelfDBRealtime", "SelfDBEmulator", "SelfDBTestSupport", "FlakyServerSupport"],
            plugins: ["SelfDBCodegenPlugin"]
        ),
        .testTarget(
            name: "SelfDBCacheTests",
            dependencies: [
                "SelfDBCache", "SelfDB", "SelfDBEmulator", "SelfDBStore", "selfdb-cache-crash-helper", "SelfDBTestSupport", "FlakyServerSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["SelfDBCodegenPlugin"]
        ),
        .testTarget(
            name: "CachedDataTests",
            dependencies: [
                "CachedData", "CachedDataDependencies", "CachedDataTestSupport", "cacheddata-crash-helper", "SelfDBTestSupport", "SelfDBRuntime",
                .product(name: "Dependencies", package: "swift-dependencies"),
            ]
        ),
        // The memo item and its in-process server, shared by the tests and the crash helper.
        .target(
            name: "CachedDataTestSupport",
            dependencies: ["CachedData", "SelfDBRuntime"],
            path: "Tests/CachedDataTestSupport"
        ),
        // The app run CachedData's crash test kills with SIGKILL.
        .executableTarget(
            name: "cacheddata-crash-helper",
            dependencies: ["CachedData", "CachedDataTestSupport"],
            path: "Tests/CachedDataCrashHelper"
        ),
        // The process the cache's crash test kills with SIGKILL.
        .executableTarget(
            name: "selfdb-cache-crash-helper",
            dependencies: ["SelfDBCache"],
            path: "Tests/SelfDBCacheCrashHelper",
            plugins: ["SelfDBCodegenPlugin"]
        ),
        .testTarget(
            name: "SynchroTests",
            dependencies: [
                "Synchro", "GRDBBinding", "SelfDB", "SelfDBRuntime", "SelfDBEmulator", "synchro-crash-helper", "SelfDBTestSupport", "SwiftUINames",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Public types named as SwiftUI's (`Table`, `TableColumn`, `Row`...), so a Linux test can
        // check that a file importing SelfDB, Synchro and "SwiftUI" compiles with SwiftUI's names.
        .target(
            name: "SwiftUINames",
            path: "Tests/SwiftUINames"
        ),
        // The process the Synchro crash test kills with SIGKILL mid-cycle.
        .executableTarget(
            name: "synchro-crash-helper",
            dependencies: ["Synchro", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/SynchroCrashHelper"
        ),
        .testTarget(
            name: "GeneratedCodeTests",
            dependencies: ["SelfDBRuntime"],
            plugins: ["SelfDBCodegenPlugin"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
