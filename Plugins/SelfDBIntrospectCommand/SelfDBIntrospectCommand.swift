import Foundation
import PackagePlugin

/// `swift package --allow-network-connections all --allow-writing-to-package-directory
/// selfdb-introspect --url URL --api-key KEY [--email E --password P | --token T]
/// [--table NAME]… --output Specs/tables.yaml`: `selfdb-codegen introspect` with the package's
/// own tool, the arguments passed as they are. A relative `--output` is taken from the package
/// directory.
@main
struct SelfDBIntrospectCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "selfdb-codegen").url
        process.currentDirectoryURL = context.package.directoryURL
        process.arguments = ["introspect"] + arguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw IntrospectFailed() }
    }
}

struct IntrospectFailed: Error, CustomStringConvertible {
    var description: String { "selfdb-codegen introspect failed (its error is above)" }
}
