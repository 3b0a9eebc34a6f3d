import Foundation
import PackagePlugin

/// Runs `selfdb-codegen` over the specs of a package's or an Xcode project's targets. Shared
/// by the command plugins (symlinked into each: plugins cannot depend on library targets).
enum SpecToolRunner {
    /// What the command line asked for.
    struct Options {
        /// `--target NAME`, repeatable; empty for every target.
        var targetNames: [String]
        var warningsAsErrors: Bool
        /// `--output DIR`, for `generate`.
        var output: String?
    }

    /// One target's specs and, for `generate`, where its Swift goes.
    struct Job {
        var specs: [URL]
        var output: String?
    }

    /// Reads `--target`, `--warnings-as-errors` and (when `takesOutput`) `--output`; anything
    /// else is an error that names what the command takes.
    static func options(_ arguments: [String], takesOutput: Bool) throws -> Options {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let output = takesOutput ? extractor.extractOption(named: "output").last : nil
        let warningsAsErrors = extractor.extractFlag(named: "warnings-as-errors") > 0
        if !extractor.remainingArguments.isEmpty {
            throw PluginError(
                "unexpected arguments: \(extractor.remainingArguments.joined(separator: " ")); this command takes --target NAME (repeatable)\(takesOutput ? ", --output DIR" : "") and --warnings-as-errors"
            )
        }
        return Options(targetNames: targetNames, warningsAsErrors: warningsAsErrors, output: output)
    }

    /// The specs of a package's source targets (or of those `options` names). For `generate`,
    /// each target's Swift goes to `--output` or `<target>/Generated`.
    static func jobs(_ context: PluginContext, _ options: Options, generating: Bool) throws -> [Job] {
        let targets = try (options.targetNames.isEmpty ? context.package.targets : context.package.targets(named: options.targetNames))
            .compactMap { $0 as? SourceModuleTarget }
        return targets.map { target in
            Job(
                specs: target.sourceFiles.map(\.url).filter(SpecFileRule.isSpec),
                output: generating ? options.output ?? target.directoryURL.appendingPathComponent("Generated").path : nil
            )
        }
    }

    /// Runs `verb` (`validate` or `generate`) over the package's targets as `arguments` ask.
    static func run(verb: String, arguments: [String], context: PluginContext) throws {
        let generating = verb == "generate"
        let options = try Self.options(arguments, takesOutput: generating)
        try run(
            verb: verb,
            tool: context.tool(named: "selfdb-codegen").url,
            projectDirectory: context.package.directoryURL,
            jobs: jobs(context, options, generating: generating),
            warningsAsErrors: options.warningsAsErrors
        )
    }

    /// Runs `verb` for every job with specs. Throws when any run fails.
    static func run(verb: String, tool: URL, projectDirectory: URL, jobs: [Job], warningsAsErrors: Bool) throws {
        var failed = false
        var checked = 0
        for job in jobs {
            let specs = job.specs.map(\.path).sorted()
            guard !specs.isEmpty else { continue }
            var toolArguments = [verb, "--relative-to", projectDirectory.path]
            if warningsAsErrors { toolArguments.append("--warnings-as-errors") }
            if let output = job.output { toolArguments += ["--output", output, "--verbose"] }
            let process = Process()
            process.executableURL = tool
            process.arguments = toolArguments + specs
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed = true }
            checked += specs.count
        }
        if failed { throw PluginError("selfdb-codegen found errors") }
        if checked == 0 { print("no specs (.yaml/.yml files with a top-level 'spec:' key) in the selected targets") }
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SpecToolRunner {
    /// Runs `verb` (`validate` or `generate`) over the Xcode project's targets as `arguments` ask.
    static func run(verb: String, arguments: [String], context: XcodePluginContext) throws {
        let generating = verb == "generate"
        let options = try Self.options(arguments, takesOutput: generating)
        try run(
            verb: verb,
            tool: context.tool(named: "selfdb-codegen").url,
            projectDirectory: context.xcodeProject.directoryURL,
            jobs: jobs(context, options, generating: generating),
            warningsAsErrors: options.warningsAsErrors
        )
    }

    /// The specs of an Xcode project's targets (or of those `options` names). An Xcode target
    /// has no folder of its own: for `generate`, its Swift goes to `--output` or a `Generated`
    /// folder beside the target's first spec.
    static func jobs(_ context: XcodePluginContext, _ options: Options, generating: Bool) -> [Job] {
        let targets = context.xcodeProject.targets.filter { options.targetNames.isEmpty || options.targetNames.contains($0.displayName) }
        return targets.map { target in
            let specs = target.inputFiles.map(\.url).filter(SpecFileRule.isSpec).sorted { $0.path < $1.path }
            let beside = specs.first?.deletingLastPathComponent().appendingPathComponent("Generated").path
            return Job(specs: specs, output: generating ? options.output ?? beside : nil)
        }
    }
}
#endif

/// A failure reported to `swift package` or Xcode.
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
