import Foundation
import SelfDBCodegen
import SelfDBEmulator
import SelfDBRuntime
import SelfDBSpec
import SelfDBTestSupport
import Testing

@testable import SelfDBIntrospection

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Introspection of a running server: the emulator on loopback, tables made through its API.
@Suite("Introspection: a running server")
struct LiveServerTests {
    static let apiKey = "introspection-key"
    static let admin = (email: "admin@example.com", password: "AdminPass123!")

    static func withServer(_ body: (SelfDBEmulator) async throws -> Void) async throws {
        let emulator = try await SelfDBEmulator.start(
            .init(apiKey: apiKey, admin: .init(email: admin.email, password: admin.password), passwordHashIterations: 1_000)
        )
        do {
            try await body(emulator)
            await emulator.stop()
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// A request to the server as any HTTP client makes it.
    @discardableResult
    static func send(_ emulator: SelfDBEmulator, _ method: String, _ path: String, token: String? = nil, json: Any? = nil, body: Data? = nil) async throws -> Any {
        var request = URLRequest(url: emulator.baseURL.appendingPathComponent(path))
        if path.hasSuffix("/"), let url = URL(string: emulator.baseURL.absoluteString + "/" + path) { request.url = url }
        request.httpMethod = method
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
        if let body { request.httpBody = body }
        if request.httpBody != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        #expect((200..<300).contains(status), "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        return try JSONSerialization.jsonObject(with: data)
    }

    static func token(_ emulator: SelfDBEmulator) async throws -> String {
        let pair = try await send(emulator, "POST", "users/token", json: ["email": admin.email, "password": admin.password])
        return (pair as? [String: Any])?["access_token"] as? String ?? ""
    }

    @Test("tables of every column type, made through the API: introspected into the committed spec, which compiles and generates their row types")
    func roundTrip() async throws {
        try await Self.withServer { emulator in
            let token = try await Self.token(emulator)
            for table in IntrospectionFixture.tables {
                try await Self.send(emulator, "POST", "tables/", token: token, body: try IntrospectionFixture.createBody(table).serialized())
            }
            let source = try TableSource(url: emulator.baseURL.absoluteString, apiKey: Self.apiKey, credentials: .password(email: Self.admin.email, password: Self.admin.password))
            let outcome = try await Introspector.run(source)
            // The spec SelfDBClientTests generates row types from, and writes rows with
            // (UPDATE_INTROSPECTION_FIXTURE=1 writes it again).
            let written = outcome.text.replacingOccurrences(of: emulator.baseURL.absoluteString, with: "http://localhost:8000")
            if ProcessInfo.processInfo.environment["UPDATE_INTROSPECTION_FIXTURE"] != nil {
                try Data(written.utf8).write(to: IntrospectionFixture.specURL)
            }
            #expect(written == (try String(contentsOf: IntrospectionFixture.specURL, encoding: .utf8)))

            let compiled = SpecCompiler.compile(outcome.text, file: "introspected.yaml")
            #expect(compiled.diagnostics.isEmpty, "\(compiled.diagnostics)\n\(outcome.text)")
            let spec = try #require(compiled.spec)
            #expect(spec.tables.map(\.name.value) == ["EveryType", "TodoItem"])
            let every = try #require(spec.tables.first)
            for type in SelfDBSpec.ColumnType.allCases {
                #expect(every.columns.first { $0.name.value == "c_\(type.rawValue)" }?.type?.value == type)
            }
            #expect(every.columns.first { $0.name.value == "stamp" }?.type?.value == .timestamp)
            #expect(every.columns.first { $0.name.value == "c_integer" }?.defaultValue?.value == .int(7))
            #expect(outcome.text.contains("# server type 'TIMESTAMPTZ'"))
            let generated = CodeGenerator.generate(spec, displayPath: "introspected.yaml").map(\.contents).joined()
            #expect(generated.contains("struct EveryType"))
            #expect(generated.contains("struct TodoItem"))

            // Anonymous: public tables only. One table by name.
            let anonymous = try TableSource(url: emulator.baseURL.absoluteString, apiKey: Self.apiKey)
            #expect(try await anonymous.tables().map(\.name) == ["todo_items"])
            #expect(try await source.tables(named: ["todo_items"]).map(\.name) == ["todo_items"])

            // Run again over the spec: nothing changed, the same bytes.
            let again = try await Introspector.run(source, existing: (outcome.text, "introspected.yaml"))
            #expect(again.text == outcome.text)
        }
    }

    /// The same against a real SelfDB (`../shared/kits/real-selfdb`): runs when
    /// `SELFDB_REAL_URL` is set (`SELFDB_REAL_API_KEY`, `SELFDB_REAL_EMAIL`,
    /// `SELFDB_REAL_PASSWORD` default to the kit's). The fixture's tables are made when missing
    /// (a create of an existing table returns it) and only they are read.
    @Test(
        "a real SelfDB: the fixture's tables introspect into the committed spec",
        .enabled(if: ProcessInfo.processInfo.environment["SELFDB_REAL_URL"] != nil)
    )
    func realServer() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = environment["SELFDB_REAL_URL"] ?? ""
        let key = environment["SELFDB_REAL_API_KEY"] ?? "test-api-key"
        let email = environment["SELFDB_REAL_EMAIL"] ?? "admin@example.com"
        let password = environment["SELFDB_REAL_PASSWORD"] ?? "Admin123!"
        let source = try TableSource(url: url, apiKey: key, credentials: .password(email: email, password: password))
        let existing = Set(try await source.tables().map(\.name))
        var signIn = URLRequest(url: try #require(URL(string: url + "/users/token")))
        signIn.httpMethod = "POST"
        signIn.setValue(key, forHTTPHeaderField: "X-API-Key")
        signIn.setValue("application/json", forHTTPHeaderField: "Content-Type")
        signIn.httpBody = try JSONSerialization.data(withJSONObject: ["email": email, "password": password])
        let (tokenData, _) = try await URLSession.shared.data(for: signIn)
        let token = (try JSONSerialization.jsonObject(with: tokenData) as? [String: Any])?["access_token"] as? String ?? ""
        for table in IntrospectionFixture.tables where !existing.contains(table.name) {
            var create = URLRequest(url: try #require(URL(string: url + "/tables/")))
            create.httpMethod = "POST"
            create.setValue(key, forHTTPHeaderField: "X-API-Key")
            create.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            create.setValue("application/json", forHTTPHeaderField: "Content-Type")
            create.httpBody = try IntrospectionFixture.createBody(table).serialized()
            let (data, response) = try await URLSession.shared.data(for: create)
            #expect((response as? HTTPURLResponse)?.statusCode == 201, "\(String(decoding: data, as: UTF8.self))")
        }
        let outcome = try await Introspector.run(source, tables: IntrospectionFixture.tables.map(\.name))
        let written = outcome.text.replacingOccurrences(of: source.baseURL.absoluteString, with: "http://localhost:8000")
        #expect(written == (try String(contentsOf: IntrospectionFixture.specURL, encoding: .utf8)))
        await #expect(throws: IntrospectionError.badAPIKey(url: source.baseURL.absoluteString)) { try await TableSource(url: url, apiKey: "wrong").tables() }
    }

    @Test("errors: a closed port, a bad key, a bad password or token, a table not served, a bad URL: one clear typed error each")
    func errors() async throws {
        try await Self.withServer { emulator in
            let url = emulator.baseURL.absoluteString
            await #expect(throws: IntrospectionError.badAPIKey(url: url)) { try await TableSource(url: url, apiKey: "wrong").tables() }
            await #expect(throws: IntrospectionError.self) {
                try await TableSource(url: url, apiKey: Self.apiKey, credentials: .password(email: Self.admin.email, password: "nope-nope")).tables()
            }
            do {
                _ = try await TableSource(url: url, apiKey: Self.apiKey, credentials: .password(email: Self.admin.email, password: "nope-nope")).tables()
            } catch let error as IntrospectionError {
                guard case .badCredentials = error else {
                    Issue.record("\(error)")
                    return
                }
            }
            await #expect(throws: IntrospectionError.noSuchTable("ghosts")) {
                try await TableSource(url: url, apiKey: Self.apiKey, credentials: .token(try await Self.token(emulator))).tables(named: ["ghosts"])
            }
        }
        // Nothing listens there any more.
        let closed = try await Self.closedPortURL()
        do {
            _ = try await TableSource(url: closed, apiKey: Self.apiKey).tables()
            Issue.record("a closed port answered")
        } catch let error as IntrospectionError {
            guard case .unreachable = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.hasPrefix("cannot reach \(closed)"))
        }
        #expect(throws: IntrospectionError.badURL("ftp://x")) { try TableSource(url: "ftp://x", apiKey: "k") }
    }

    /// The URL of a server that was just stopped: its port refuses connections.
    static func closedPortURL() async throws -> String {
        let emulator = try await SelfDBEmulator.start(.init(apiKey: apiKey, passwordHashIterations: 1_000))
        let url = emulator.baseURL.absoluteString
        await emulator.stop()
        return url
    }
}
