import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory selfdb-codegen [--target T]…
/// [--output DIR]` writes the generated Swift of each target's specs into the target
/// (default `<target>/Generated`), for teams that commit generated code. Such a target must
/// not also apply the build-tool plugin, or every declaration would exist twice. In an Xcode
/// project (File ▸ Packages, or the project's context menu) the default is a `Generated` folder
/// beside the target's first spec.
@main
struct SelfDBCodegenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try SpecToolRunner.run(verb: "generate", arguments: arguments, context: context)
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SelfDBCodegenCommand: XcodeCommandPlugin {
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        try SpecToolRunner.run(verb: "generate", arguments: arguments, context: context)
    }
}
#endif
