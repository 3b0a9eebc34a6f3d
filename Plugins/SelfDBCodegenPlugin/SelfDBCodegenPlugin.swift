import Foundation
import PackagePlugin

/// Generates Swift for every spec in a target, at build time.
///
/// A spec is a `.yaml`/`.yml` file with a top-level `spec:` key (``SpecFileRule``); other YAML
/// in the target is never fed to the generator, so it cannot fail the build. One build command
/// per spec, with the spec as its only input and its part files as outputs: the build system reruns it only when
/// the spec (or the generator) changed, and the generator leaves an unchanged output untouched
/// so dependants are not recompiled.
///
/// Diagnostics name the spec by its absolute path, so Xcode attaches them to the file; the
/// generated files' headers name it relative to the package or project.
@main
struct SelfDBCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        return try commands(
            specs: target.sourceFiles.map(\.url).filter(SpecFileRule.isSpec),
            tool: context.tool(named: "selfdb-codegen").url,
            workDirectory: context.pluginWorkDirectoryURL,
            packageDirectory: context.package.directoryURL
        )
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
        if let clash = SpecFileRule.clashingStems(specs).first {
            let paths = clash.specs.map(\.path).joined(separator: " and ")
            throw PluginError(
                "specs \(paths) would all generate \(clash.stem).*.generated.swift (names that differ only in case overwrite each other on a case-insensitive disk, and a module's Swift file names must be unique); rename all but one"
            )
        }
        return specs.sorted { $0.path < $1.path }.map { spec in
            let stem = spec.deletingPathExtension().lastPathComponent
            return .buildCommand(
                displayName: "Generating Swift from \(spec.lastPathComponent)",
                executable: tool,
                arguments: [
                    "generate", "--output", outputDirectory.path, "--relative-to", packageDirectory.path, "--absolute-diagnostic-paths", spec.path,
                ],
                inputFiles: [spec],
                outputFiles: Self.outputNames(stem: stem).map { outputDirectory.appendingPathComponent($0) }
            )
        }
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension SelfDBCodegenPlugin: XcodeBuildToolPlugin {
    /// In an Xcode project `inputFiles` holds every file of the target, its resources included:
    /// the same rule picks out the specs.
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        try commands(
            specs: target.inputFiles.map(\.url).filter(SpecFileRule.isSpec),
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
