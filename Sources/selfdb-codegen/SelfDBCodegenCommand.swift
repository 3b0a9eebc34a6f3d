import ArgumentParser
import Foundation
import SelfDBCodegen
import SelfDBSpec

/// `selfdb-codegen`: validate specs in CI, or generate Swift from them.
@main
struct SelfDBCodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfdb-codegen",
        abstract: "Validate SelfDB spec files and generate Swift from them.",
        subcommands: [Validate.self, Generate.self]
    )
}

/// Options both subcommands take.
struct SpecOptions: ParsableArguments {
    @Flag(help: "Treat warnings as errors (exit 1 when there are any).")
    var warningsAsErrors = false

    @Option(help: "Print spec paths relative to this directory (symlinks resolved).")
    var relativeTo: String?

    @Argument(help: "Spec files, or directories to search for .yaml/.yml files.")
    var paths: [String]

    /// The spec files named, directories expanded, in a stable order.
    func specFiles() throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("no such file or directory: \(path)")
            }
            if isDirectory.boolValue {
                let found = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
                files += found.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// The path to show for `file`.
    func displayPath(_ file: String) -> String {
        guard let base = relativeTo else { return file }
        let resolved = URL(fileURLWithPath: file).resolvingSymlinksInPath().standardizedFileURL.path
        let root = URL(fileURLWithPath: base).resolvingSymlinksInPath().standardizedFileURL.path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return resolved.hasPrefix(prefix) ? String(resolved.dropFirst(prefix.count)) : resolved
    }

    /// Compiles every file, prints diagnostics to stderr, and returns the outputs and
    /// whether the run failed.
    func compileAll() throws -> (outputs: [(file: String, shown: String, output: SpecCompiler.Output)], failed: Bool) {
        var results: [(String, String, SpecCompiler.Output)] = []
        var failed = false
        for file in try specFiles() {
            let shown = displayPath(file)
            let output = SpecCompiler.compile(contentsOf: file, displayPath: shown)
            for diagnostic in output.diagnostics {
                FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
            }
            if output.diagnostics.hasErrors || (warningsAsErrors && !output.diagnostics.isEmpty) || output.spec == nil {
                failed = true
            }
            results.append((file, shown, output))
        }
        return (results, failed)
    }
}

extension SelfDBCodegenCommand {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check specs; print `path:line:col: error: …` for each problem. Exit 0 when clean, 1 on errors."
        )

        @OptionGroup var options: SpecOptions

        func run() throws {
            let (outputs, failed) = try options.compileAll()
            if failed { throw ExitCode(1) }
            let noun = outputs.count == 1 ? "spec" : "specs"
            print("\(outputs.count) \(noun) valid")
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate specs and write `<name>.{models,client,tables}.generated.swift` for each into a directory, only when changed."
        )

        @OptionGroup var options: SpecOptions

        @Option(help: "Directory to write generated Swift into.")
        var output: String

        @Flag(help: "Print each file written or unchanged.")
        var verbose = false

        func run() throws {
            let (outputs, failed) = try options.compileAll()
            if failed { throw ExitCode(1) }
            let directory = URL(fileURLWithPath: output)
            for item in outputs {
                guard let spec = item.output.spec else { continue }
                for file in CodeGenerator.generate(spec, displayPath: item.shown) {
                    let outcome = try OutputWriter.write(file, to: directory)
                    if verbose { print("\(outcome == .written ? "wrote" : "unchanged") \(directory.appendingPathComponent(file.name).path)") }
                }
                if let removed = try OutputWriter.removeSingleFileOutput(ofSpecAt: item.shown, in: directory), verbose {
                    print("removed \(removed.path) (now split into parts)")
                }
            }
        }
    }
}
