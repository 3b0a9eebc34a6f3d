import ArgumentParser
import Foundation
import SelfDBCodegen
import SelfDBSpec

/// `selfdb-codegen`: validate specs in CI, or generate Swift from them.
@main
struct SelfDBCodegenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfdb-codegen",
        abstract: "Validate SelfDB spec files, generate Swift from them, and write table specs from a running server.",
        subcommands: [Validate.self, Generate.self, Introspect.self, Check.self]
    )
}

/// Options both subcommands take.
struct SpecOptions: ParsableArguments {
    @Flag(help: "Treat warnings as errors (exit 1 when there are any).")
    var warningsAsErrors = false

    @Option(help: "Print spec paths relative to this directory (symlinks resolved).")
    var relativeTo: String?

    @Flag(help: "Name specs by their absolute path in diagnostics (what Xcode needs to attach them to the file).")
    var absoluteDiagnosticPaths = false

    @Argument(help: "Spec files, or directories to search for specs (.yaml/.yml files with a top-level 'spec:' key).")
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
                // Named files are always compiled; in a directory only specs are (SpecFileRule).
                let found = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
                files += found.sorted().map { (path as NSString).appendingPathComponent($0) }.filter { SpecFileRule.isSpec(URL(fileURLWithPath: $0)) }
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
            let absolute = URL(fileURLWithPath: file).standardizedFileURL.path
            for var diagnostic in output.diagnostics {
                if absoluteDiagnosticPaths, diagnostic.location.file == shown { diagnostic.location.file = absolute }
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

        @Flag(
            help: """
                Write nothing; exit 1 and name each file of the output directory that is missing or \
                differs by a byte from what the generator writes now (a CI step for committed \
                generated code).
                """
        )
        var check = false

        func run() throws {
            let specs = try options.specFiles().map { URL(fileURLWithPath: $0) }
            if let clash = SpecFileRule.clashingStems(specs).first {
                throw ValidationError(
                    "\(clash.specs.map(\.path).joined(separator: " and ")) would all write \(clash.stem).*.generated.swift into \(output) (names that differ only in case overwrite each other on a case-insensitive disk); rename all but one"
                )
            }
            let (outputs, failed) = try options.compileAll()
            if failed { throw ExitCode(1) }
            let directory = URL(fileURLWithPath: output)
            if check {
                try runCheck(outputs.compactMap { item in item.output.spec.map { (item.shown, $0) } }, in: directory)
                return
            }
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

extension SelfDBCodegenCommand.Generate {
    /// `--check`: compares instead of writing.
    func runCheck(_ specs: [(shown: String, spec: Spec)], in directory: URL) throws {
        var stale: [String] = []
        var checked = 0
        for (shown, spec) in specs {
            let files = CodeGenerator.generate(spec, displayPath: shown)
            checked += files.count
            for problem in OutputWriter.staleFiles(files, in: directory) {
                let path = directory.appendingPathComponent(problem.name).path
                stale.append("\(path): error: \(problem.detail): not what selfdb-codegen generates from \(shown) now")
            }
        }
        for line in stale {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        guard stale.isEmpty else {
            FileHandle.standardError.write(Data("\(stale.count) of \(checked) generated files are stale; run the same command without --check to regenerate them\n".utf8))
            throw ExitCode(1)
        }
        print("\(checked) generated files up to date in \(directory.path)")
    }
}
