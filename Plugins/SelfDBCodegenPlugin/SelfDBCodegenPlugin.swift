import Foundation
import PackagePlugin

/// Generates Swift for every `.yaml`/`.yml` spec file in a target, at build time.
///
/// One build command per spec, with the spec as its only input and its part files as
/// outputs: the build system reruns it only when the spec (or the generator) changed, and the
/// generator leaves an unchanged output untouched so dependants are not recompiled. Non-spec
/// YAML in a target should be `exclude:`d in Package.swift.
@main
struct SelfDBCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        return try commands(
            specs: target.sourceFiles.map(\.url).filter(Self.isSpec),
            tool: context.tool(named: "selfdb-codegen").url,
            workDirectory: context.pluginWorkDirectoryURL,
            packageDirectory: context.package.directoryURL
        )
    }

    static func isSpec(_ url: URL) -> Bool {
        ["yaml", "yml"].contains(url.pathExtension) && !url.lastPathComponent.hasPrefix(".")
    }

    /// The parts every spec generates and how many files each is spread over, as
    /// `GeneratedPart` in SelfDBCodegen has them (a plugin cannot link the generator library,
    /// so they are repeated here; `check-plugin-app.sh` builds an app through this plugin, which
    /// fails if the two disagree).
    static let parts = [("models", 3), ("client", 1), ("tables", 2)]

    /// `selfdb.models.generated.swift`, `selfdb.models.2.generated.swift`, … for `stem` `selfdb`.
    static func outputNames(stem: String) -> [String] {
        parts.flatMap { part, count in
            (1...count).map { $0 == 1 ? "\(stem).\(part).generated.swift" : "\(stem).\(part).\($0).generated.swift" }
        }
    }

    func commands(specs: [URL], tool: URL, workDirectory: URL, packageDirectory: URL) throws -> [Command] {
        let outputDirectory = workDirectory.appendingPathComponent("Generated")
        var stems: [String: URL] = [:]
        for spec in specs {
            let stem = spec.deletingPathExtension().lastPathComponent
            if let other = stems[stem] {
                throw PluginError("specs \(other.path) and \(spec.path) would both generate \(stem).*.generated.swift; rename one (a module's Swift file names must be unique)")
            }
            stems[stem] = spec
        }
        return specs.sorted { $0.path < $1.path }.map { spec in
            let stem = spec.deletingPathExtension().lastPathComponent
            return .buildCommand(
                displayName: "Generating Swift from \(spec.lastPathComponent)",
                executable: tool,
                arguments: ["generate", "--output", outputDirectory.path, "--relative-to", packageDirectory.path, spec.path],
                inputFiles: [spec],
                outputFiles: Self.outputNames(stem: stem).map { outputDirectory.appendingPathComponent($0) }
            )
        }
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SelfDBCodegenPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        try commands(
            specs: target.inputFiles.map(\.url).filter(Self.isSpec),
            tool: context.tool(named: "selfdb-codegen").url,
            workDirectory: context.pluginWorkDirectoryURL,
            packageDirectory: context.xcodeProject.directoryURL
        )
    }
}
#endif

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
