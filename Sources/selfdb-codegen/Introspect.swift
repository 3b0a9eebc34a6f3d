import ArgumentParser
import Foundation
import SelfDBIntrospection

extension SelfDBCodegenCommand {
    /// `selfdb-codegen introspect`: a spec's `tables:` from a running SelfDB.
    struct Introspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write table specs from the tables a running SelfDB serves (its /tables API).",
            discussion: """
                With --output naming an existing spec, its tables are brought up to date with the \
                server: only what the server changed is rewritten, what you wrote by hand \
                (descriptions, swift: names, sync:, comments of unchanged tables) is kept, and a \
                file with nothing to change is left untouched. Without --output the spec is printed.
                """
        )

        @Option(help: "The server's base URL, e.g. http://localhost:8000.")
        var url: String

        @Option(help: "The server's API key (X-API-Key).")
        var apiKey: String

        @Option(help: "Sign in as this user to read private tables (with --password).")
        var email: String?

        @Option(help: "The user's password (with --email).")
        var password: String?

        @Option(help: "A bearer access token to read private tables with (instead of --email/--password).")
        var token: String?

        @Option(name: .customLong("table"), help: "Only this table (repeat for more); all the server serves by default.")
        var tables: [String] = []

        @Option(help: "The spec file to write, or to update when it exists.")
        var output: String?

        func validate() throws {
            if (email == nil) != (password == nil) { throw ValidationError("--email and --password go together") }
            if token != nil, email != nil { throw ValidationError("give --token or --email/--password, not both") }
        }

        func run() async throws {
            let credentials: TableSource.Credentials =
                if let token { .token(token) } else if let email, let password { .password(email: email, password: password) } else { .none }
            do {
                let source = try TableSource(url: url, apiKey: apiKey, credentials: credentials)
                var existing: (text: String, file: String)?
                if let output, FileManager.default.fileExists(atPath: output) {
                    existing = (try String(contentsOfFile: output, encoding: .utf8), output)
                }
                let outcome = try await Introspector.run(source, tables: tables, existing: existing)
                guard let output else {
                    print(outcome.text, terminator: "")
                    return
                }
                for change in outcome.changes { FileHandle.standardError.write(Data("\(output): \(change)\n".utf8)) }
                if existing?.text == outcome.text {
                    FileHandle.standardError.write(Data("\(output): up to date with \(url)\n".utf8))
                    return
                }
                try Data(outcome.text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch let error as IntrospectionError {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(1)
            } catch let error as SpecFileMerger.UnreadableSpec {
                FileHandle.standardError.write(Data("error: \(output ?? "spec"): \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
