import Foundation
import PackagePlugin

/// Runs `selfdb-codegen` over the spec files of a package's targets. Shared by the command
/// plugins (symlinked into each: plugins cannot depend on library targets).
enum SpecToolRunner {
    /// Runs `verb` over every target's `.yaml`/`.yml` sources (or those of `--target` names).
    /// `output` gives the directory per target for `generate`. Throws when any run fails.
    static func run(verb: String, context: PluginContext, arguments: [String], output: ((SourceModuleTarget) -> String)?) throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let warningsAsErrors = extractor.extractFlag(named: "warnings-as-errors") > 0
        if !extractor.remainingArguments.isEmpty {
            throw PluginError(
                "unexpected arguments: \(extractor.remainingArguments.joined(separator: " ")); this command takes --target NAME (repeatable)\(output == nil ? "" : ", --output DIR") and --warnings-as-errors"
            )
        }
        let targets = try (targetNames.isEmpty ? context.package.targets : context.package.targets(named: targetNames))
            .compactMap { $0 as? SourceModuleTarget }
        let tool = try context.tool(named: "selfdb-codegen").url
        var failed = false
        var checked = 0
        for target in targets {
            let specs = target.sourceFiles.map(\.url).filter { ["yaml", "yml"].contains($0.pathExtension) }.map(\.path).sorted()
            guard !specs.isEmpty else { continue }
            var toolArguments = [verb, "--relative-to", context.package.directoryURL.path]
            if warningsAsErrors { toolArguments.append("--warnings-as-errors") }
            if let output { toolArguments += ["--output", output(target), "--verbose"] }
            let process = Process()
            process.executableURL = tool
            process.arguments = toolArguments + specs
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed = true }
            checked += specs.count
        }
        if failed { throw PluginError("selfdb-codegen found errors") }
        if checked == 0 { print("no .yaml/.yml spec files in the selected targets") }
    }
}

/// A failure reported to `swift package`.
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
