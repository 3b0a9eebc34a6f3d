import ArgumentParser
import Foundation
import SelfDBOpenAPI
import SelfDBSpec

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SelfDBCodegenCommand {
    /// `selfdb-codegen check --openapi URL|FILE SPEC…`: drift between specs and a server.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare specs with a server's OpenAPI document; print each difference at the spec's line and column.",
            discussion: """
                Errors: an endpoint, parameter or model field the server does not have, or has \
                with another type, or null where the spec says never. Warnings: what the spec \
                may want (a field it lacks, an optional it could rely on). Notes: operations the \
                server has that the spec does not cover, and differences the spec declares with \
                `drift: "why"`. Exit 1 on errors (and on warnings with --warnings-as-errors).
                """
        )

        @Option(help: "The server's OpenAPI document: a file, or a URL (SelfDB serves /openapi.json).")
        var openapi: String

        @Option(help: "The API key a URL needs (X-API-Key).")
        var apiKey: String?

        @OptionGroup var options: SpecOptions

        func run() async throws {
            let document: OpenAPIDocument
            do {
                document = try OpenAPIDocument(json: try await Self.load(openapi, apiKey: apiKey))
            } catch {
                let reason = (error as? ValidationError)?.message ?? "\(error)"
                FileHandle.standardError.write(Data("error: \(openapi): \(reason)\n".utf8))
                throw ExitCode(1)
            }
            let (outputs, failed) = try options.compileAll()
            if failed { throw ExitCode(1) }
            var counts: [DriftFinding.Severity: Int] = [:]
            for item in outputs {
                guard let spec = item.output.spec else { continue }
                let findings = DriftChecker.check(spec, against: document).sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
                for var finding in findings {
                    if options.absoluteDiagnosticPaths, finding.location.file == item.shown {
                        finding.location.file = URL(fileURLWithPath: item.file).standardizedFileURL.path
                    }
                    counts[finding.severity, default: 0] += 1
                    print(finding.description)
                }
            }
            let (errors, warnings, notes) = (counts[.error] ?? 0, counts[.warning] ?? 0, counts[.note] ?? 0)
            print("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s") against \(openapi)")
            if errors > 0 || (options.warningsAsErrors && warnings > 0) { throw ExitCode(1) }
        }

        static func load(_ source: String, apiKey: String?) async throws -> Data {
            guard source.hasPrefix("http://") || source.hasPrefix("https://") else {
                guard FileManager.default.isReadableFile(atPath: source), let data = FileManager.default.contents(atPath: source) else {
                    throw ValidationError("no such file, or not readable")
                }
                return data
            }
            guard let url = URL(string: source) else { throw ValidationError("'\(source)' is not a URL") }
            var request = URLRequest(url: url)
            if let apiKey { request.setValue(apiKey, forHTTPHeaderField: "X-API-Key") }
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await URLSession.shared.data(for: request)
            } catch {
                throw ValidationError("cannot reach it: \((error as NSError).localizedDescription)")
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else {
                throw ValidationError("answered \(status)\(status == 406 || status == 401 ? " (give --api-key)" : "")")
            }
            return data
        }
    }
}
