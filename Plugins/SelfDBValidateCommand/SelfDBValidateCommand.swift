import Foundation
import PackagePlugin

/// `swift package selfdb-validate [--target T]… [--warnings-as-errors]`: checks every spec
/// of the package's targets and prints `path:line:col: error: …` for each problem; fails when
/// there are errors. Needs no permissions, so it fits a CI step as is. It runs from an Xcode
/// project too, over the project's targets.
@main
struct SelfDBValidateCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try SpecToolRunner.run(verb: "validate", arguments: arguments, context: context)
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SelfDBValidateCommand: XcodeCommandPlugin {
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        try SpecToolRunner.run(verb: "validate", arguments: arguments, context: context)
    }
}
#endif
