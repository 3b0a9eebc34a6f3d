// swift-tools-version: 6.1
import PackageDescription

// The generator side (SelfDBSpec, SelfDBCodegen, selfdb-codegen, the plugins) depends on
// Yams and ArgumentParser only: it is compiled for the host in every clean build of every
// app that applies the plugin, so its dependency tree must stay small.
let package = Package(
    name: "selfdb-swift",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "SelfDBEmulator", targets: ["SelfDBEmulator"]),
        .executable(name: "selfdb-emulator", targets: ["selfdb-emulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
    ],
    targets: [
        // MARK: Emulator
        .target(
            name: "SelfDBEmulator",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "selfdb-emulator",
            dependencies: [
                "SelfDBEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Tests
        .testTarget(
            name: "SelfDBEmulatorTests",
            dependencies: [
                "SelfDBEmulator",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
