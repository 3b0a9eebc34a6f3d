import Foundation
import SelfDBSpec
import Testing

@testable import SelfDBOpenAPI

/// Specs against the real SelfDB v0.0.5 OpenAPI document (`Fixtures/`, taken from a running
/// server with the real-selfdb kit).
@Suite("Drift between a spec and a server's OpenAPI document")
struct DriftCheckTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func document() throws -> OpenAPIDocument {
        try OpenAPIDocument(json: Data(contentsOf: fixtures.appendingPathComponent("selfdb-v0.0.5.openapi.json")))
    }

    static func findings(_ text: String) throws -> [DriftFinding] {
        let output = SpecCompiler.compile(text, file: "s.yaml")
        #expect(!output.diagnostics.hasErrors, "\(output.diagnostics)")
        return DriftChecker.check(try #require(output.spec), against: try document())
    }

    @Test("the document: 74 operations, their parameters, bodies and answers; nullable and referenced schemas")
    func readsTheDocument() throws {
        let document = try Self.document()
        #expect(document.operations.count == 74)
        let upload = try #require(document.operations[OpenAPIDocument.Key(method: "post", path: "/storage/files/upload")])
        #expect(upload.parameters.first { $0.name == "bucket_id" }?.required == true)
        #expect(upload.parameters.first { $0.name == "path" }?.schema == .nullable(.string(format: nil)))
        #expect(upload.responses[201] == .some(.reference("FileUploadResponse")))
        guard case .object(let properties, let required, _) = try #require(document.schemas["FileUploadResponse"]) else {
            Issue.record("FileUploadResponse is not an object")
            return
        }
        #expect(properties["upload_time"] == .nullable(.number))
        #expect(required == ["bucket", "path", "size"])
        #expect(OpenAPIDocument.Key(method: "get", path: "/tables/{table_id}") == OpenAPIDocument.Key(method: "GET", path: "/tables/{id}"))
    }

    @Test("Spec/selfdb.yaml covers all 74 operations: no error, no warning, nothing missing; its 10 declared differences and the WebSocket are notes")
    func theSDKSpecPasses() throws {
        let text = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("Spec/selfdb.yaml"), encoding: .utf8)
        let findings = try Self.findings(text)
        #expect(findings.filter { $0.severity != .note } == [])
        #expect(findings.filter { $0.message.hasSuffix("the spec does not") } == [])
        #expect(findings.filter { $0.message.contains("(declared: ") }.count == 10)
        #expect(findings.contains { $0.message.hasPrefix("GET /realtime/socket is covered outside the spec: ") })
    }

    @Test("a form body must match the server's form; an 'elsewhere' operation must exist")
    func formsAndElsewhere() throws {
        let text = """
            spec: 1
            endpoints:
              backups.restore:
                post: /backups/restore
                params:
                  archive: { in: body, type: Bytes, form: upload }
              files.upload:
                post: /storage/files/upload
                params:
                  bucket_id: UUID
                  filename: String
                  data: { in: body, type: Bytes, form: file }
              backups.restoreAgain:
                post: /backups/restore
                params:
                  archive: { in: body, type: Bytes, form: file }
            elsewhere:
              "GET /realtime/socket": "hand-written"
              "GET /realtime/nope": "hand-written too"
            """
        let findings = try Self.findings(text)
        func finding(at line: Int, _ severity: DriftFinding.Severity, containing text: String) -> Bool {
            findings.contains { $0.location.line == line && $0.severity == severity && $0.message.contains(text) }
        }
        #expect(finding(at: 6, .error, containing: "the server's form has no field 'upload'"))
        #expect(finding(at: 12, .error, containing: "POST /storage/files/upload takes no multipart form on the server"))
        #expect(!findings.contains { $0.location.line == 16 }, "the restore's form is the server's")
        #expect(finding(at: 18, .note, containing: "GET /realtime/socket is covered outside the spec: hand-written"))
        #expect(finding(at: 19, .error, containing: "GET /realtime/nope is not an operation of the server ('elsewhere')"))
        #expect(!findings.contains { $0.message.hasPrefix("the server has GET /realtime/socket") })
    }

    @Test("planted drifts are found at the spec's line and column: operations, parameters, fields, types, nulls, enum cases")
    func plantedDrifts() throws {
        let text = """
            spec: 1
            endpoints:
              storage.files.upload:
                post: /storage/files/upload
                params:
                  bucket_id: UUID
                  filename: String
                  data: { in: body, type: Bytes }
                  folder: String?
                returns: Upload
              storage.files.list:
                get: /storage/files/
                params:
                  page: String?
                  sort_by: Order?
                returns: JSON
              tables.rows:
                get: /tables/{id}/nope
                params:
                  id: UUID
                returns: JSON
              users.count:
                get: /users/count
                params:
                  search: { type: Int, drift: "kept an Int on purpose" }
                returns: Int
            models:
              Upload:
                fields:
                  bucket: String
                  path: String
                  size: Int64
                  file_id: UUID
                  upload_time: String
                  speed: Double?
              Order:
                enum: [name, size, colour]
            """
        let findings = try Self.findings(text)
        func finding(at line: Int, _ severity: DriftFinding.Severity, containing text: String) -> Bool {
            findings.contains { $0.location.line == line && $0.severity == severity && $0.message.contains(text) }
        }
        #expect(finding(at: 9, .error, containing: "the server takes no parameter 'folder'"))
        #expect(finding(at: 14, .error, containing: "parameter 'page' is integer on the server; the spec says String"))
        #expect(finding(at: 12, .error, containing: "the server requires the query parameter 'bucket_id'"))
        #expect(finding(at: 18, .error, containing: "GET /tables/{id}/nope ('tables.rows') is not an operation of the server"))
        #expect(finding(at: 25, .note, containing: "(declared: kept an Int on purpose)"))
        #expect(finding(at: 33, .error, containing: "the server's FileUploadResponse.file_id may be null"))
        #expect(finding(at: 34, .error, containing: "FileUploadResponse.upload_time is number on the server; the spec says String"))
        #expect(finding(at: 35, .error, containing: "the server's FileUploadResponse has no field 'speed'"))
        #expect(finding(at: 28, .warning, containing: "the server's FileUploadResponse has 'success'; Upload does not"))
        #expect(finding(at: 37, .error, containing: "the server knows no case 'colour' of Order"))
        // Where every finding points, in the compiler's format.
        #expect(findings.allSatisfy { $0.description.hasPrefix("s.yaml:\($0.location.line):\($0.location.column): ") })
        #expect(findings.filter { $0.severity == .note && $0.message.hasSuffix("the spec does not") }.count == 71, "74 less the three it covers")
    }

    @Test("a document that is not OpenAPI 3 JSON is refused with a reason")
    func unreadableDocuments() {
        #expect(throws: OpenAPIDocument.Unreadable.self) { try OpenAPIDocument(json: Data("nope".utf8)) }
        #expect(throws: OpenAPIDocument.Unreadable.self) { try OpenAPIDocument(json: Data(#"{"swagger":"2.0","paths":{}}"#.utf8)) }
    }
}
