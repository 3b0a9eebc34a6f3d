import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory selfdb-codegen [--target T]…
/// [--output DIR]` writes the generated Swift of each target's specs into the target
/// (default `<target>/Generated`), for teams that commit generated code. Such a target must
/// not also apply the build-tool plugin, or every declaration would exist twice.
@main
struct SelfDBCodegenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let outputOverride = extractor.extractOption(named: "output").last
        try SpecToolRunner.run(verb: "generate", context: context, arguments: extractor.remainingArguments) { target in
            outputOverride ?? target.directoryURL.appendingPathComponent("Generated").path
        }
    }
}
