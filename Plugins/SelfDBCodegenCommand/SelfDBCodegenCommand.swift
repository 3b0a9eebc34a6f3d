import Foundation
import PackagePlugin

/// `swift package selfdb-codegen validate [--target T]…` checks the specs of the package's
/// targets (all by default); `swift package --allow-writing-to-package-directory
/// selfdb-codegen generate --target T [--output DIR]` writes their generated Swift into the
/// target (default `<target>/Generated`) for teams that commit generated code — such a
/// target must then not also apply the build-tool plugin.
@main
struct SelfDBCodegenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let outputOverride = extractor.extractOption(named: "output").last
        let warningsAsErrors = extractor.extractFlag(named: "warnings-as-errors") > 0
        let rest = extractor.remainingArguments
        guard let verb = rest.first, verb == "validate" || verb == "generate" else {
            throw PluginError("usage: swift package selfdb-codegen validate|generate [--target NAME]... [--output DIR] [--warnings-as-errors]")
        }
        let targets = try (targetNames.isEmpty ? context.package.targets : context.package.targets(named: targetNames))
            .compactMap { $0 as? SourceModuleTarget }
        let tool = try context.tool(named: "selfdb-codegen").url
        var failed = false
        for target in targets {
            let specs = target.sourceFiles.map(\.url).filter { ["yaml", "yml"].contains($0.pathExtension) }.map(\.path).sorted()
            guard !specs.isEmpty else { continue }
            var toolArguments = [verb, "--relative-to", context.package.directoryURL.path]
            if warningsAsErrors { toolArguments.append("--warnings-as-errors") }
            if verb == "generate" {
                let output = outputOverride ?? target.directoryURL.appendingPathComponent("Generated").path
                toolArguments += ["--output", output, "--verbose"]
            }
            let process = Process()
            process.executableURL = tool
            process.arguments = toolArguments + specs
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed = true }
        }
        if failed { throw PluginError("selfdb-codegen found errors") }
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
