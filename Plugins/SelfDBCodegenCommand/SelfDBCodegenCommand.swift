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
        let options = try SpecToolRunner.options(arguments, takesOutput: true)
        try SpecToolRunner.run(
            verb: "generate",
            tool: context.tool(named: "selfdb-codegen").url,
            projectDirectory: context.package.directoryURL,
            jobs: SpecToolRunner.jobs(context, options, generating: true),
            warningsAsErrors: options.warningsAsErrors
        )
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SelfDBCodegenCommand: XcodeCommandPlugin {
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        let options = try SpecToolRunner.options(arguments, takesOutput: true)
        try SpecToolRunner.run(
            verb: "generate",
            tool: context.tool(named: "selfdb-codegen").url,
            projectDirectory: context.xcodeProject.directoryURL,
            jobs: SpecToolRunner.jobs(context, options, generating: true),
            warningsAsErrors: options.warningsAsErrors
        )
    }
}
#endif
