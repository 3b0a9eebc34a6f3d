import Foundation
import SelfDBRuntime
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NotesAPI` is generated from `notes-api.yaml`; these tests check what its functions put
/// on the wire and how they read answers.
@Suite struct EndpointStubTests {
    let noteID = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF") ?? UUID()
    let noteJSON = #"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","title":"T","color":"PURPLE","tags":[],"created_at":"2024-01-02T03:04:05Z"}"#

    func api(_ replies: [RecordingTransport.Reply], retry: RetryPolicy = .none) -> (NotesAPI, RecordingTransport) {
        let transport = RecordingTransport(replies)
        let configuration = APIClient.Configuration(
            baseURL: URL(string: "http://127.0.0.1:9/api") ?? URL(fileURLWithPath: "/"),
            apiKey: "key-1",
            errorKinds: NotesAPI.errorKinds,
            retryPolicy: retry
        )
        return (NotesAPI(api: APIClient(configuration: configuration, transport: transport)), transport)
    }

    @Test func queryParametersAreEncodedAndNilOnesLeftOut() async throws {
        let (api, transport) = api([.init(status: 200, body: "[\(noteJSON)]")])
        let notes = try await api.notes.list(search: "a b&c", color: .greenBlue)
        let request = try #require(transport.lastRequest)
        #expect(request.httpMethod == "GET")
        #expect(request.url?.absoluteString == "http://127.0.0.1:9/api/notes?search=a%20b%26c&color=GREEN_BLUE")
        #expect(request.value(forHTTPHeaderField: "X-API-Key") == "key-1")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil, "optional bearer without a session sends none")
        #expect(notes.first?.color == .unknown("PURPLE"), "unknown enum values decode instead of failing")
        #expect(notes.first?.color.rawValue == "PURPLE")
    }

    @Test func signInKeepsTokensForBearerCalls() async throws {
        let (api, transport) = api([
            .init(status: 200, body: #"{"access_token":"tok-1","refresh_token":"ref-1","expires_in":60}"#),
            .init(status: 200, body: "7"),
            .init(status: 204, body: ""),
        ])
        let tokens = try await api.auth.signIn(email: "a@b.c", password: "pw")
        #expect(tokens.accessToken == "tok-1")
        let body = try #require(transport.requests.first?.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == #"{"email":"a@b.c","password":"pw"}"#)
        #expect(try await api.notes.count() == 7, "a bare integer response decodes as Int")
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer tok-1")
        try await api.auth.signOut()
        #expect(await api.api.tokenStore.load() == nil)
    }

    @Test func bearerCallsWithoutSessionFailBeforeSending() async {
        let (api, transport) = api([])
        await #expect(throws: SelfDBError.self) { try await api.notes.get(noteID) }
        #expect(transport.requestCount == 0)
    }

    @Test func pathParametersAreLowercaseAndEscaped() async throws {
        let (api, transport) = api([
            .init(status: 200, body: #"{"path":"x","size":3}"#),
            .init(status: 200, body: "raw bytes"),
        ])
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        let attachment = try await api.attachments.upload(for: noteID, name: "a/b c.png", bytes: Data([1, 2, 3]))
        #expect(attachment.size == 3)
        let upload = try #require(transport.requests.first)
        #expect(upload.httpMethod == "PUT")
        #expect(upload.url?.absoluteString == "http://127.0.0.1:9/api/notes/6f9619ff-8b86-d011-b42d-00c04fc964ff/attachments/a%2Fb%20c.png")
        #expect(upload.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(upload.httpBody == Data([1, 2, 3]))

        let bytes = try await api.attachments.download(path: "/docs/q 1/report.pdf")
        #expect(bytes == Data("raw bytes".utf8))
        #expect(transport.lastRequest?.url?.absoluteString == "http://127.0.0.1:9/api/files/docs/q%201/report.pdf")
    }

    /// `stream:` adds functions that take the body from a file and write the answer to one;
    /// they send what the `Data` functions send (this transport has no streaming of its own, so
    /// the protocol's in-memory fallback carries the bytes).
    @Test func streamedVariantsSendTheSameRequests() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("photo.png")
        try Data([9, 8, 7, 6]).write(to: source)
        let (api, transport) = api([
            .init(status: 200, body: #"{"path":"x","size":4}"#),
            .init(status: 200, body: "raw bytes", headers: ["Content-Length": "9"]),
            .init(status: 204, body: ""),
        ])
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        let sent = Locked<[TransferProgress]>([])
        let attachment = try await api.attachments.upload(for: noteID, name: "a/b c.png", fileURL: source) { progress in
            sent.withLock { $0.append(progress) }
        }
        #expect(attachment.size == 4)
        let upload = try #require(transport.requests.first)
        #expect(upload.httpMethod == "PUT")
        #expect(upload.url?.absoluteString == "http://127.0.0.1:9/api/notes/6f9619ff-8b86-d011-b42d-00c04fc964ff/attachments/a%2Fb%20c.png")
        #expect(upload.value(forHTTPHeaderField: "Content-Type") == "image/png", "the spec's contentType")
        #expect(upload.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(upload.httpBody == Data([9, 8, 7, 6]))
        #expect(sent.withLock { $0.last } == TransferProgress(bytesDone: 4, bytesExpected: 4))

        let destination = folder.appendingPathComponent("report.pdf")
        let size = try await api.attachments.download(path: "/docs/q 1/report.pdf", to: destination)
        #expect(size == 9)
        #expect(try Data(contentsOf: destination) == Data("raw bytes".utf8))
        #expect(transport.lastRequest?.url?.absoluteString == "http://127.0.0.1:9/api/files/docs/q%201/report.pdf")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["photo.png", "report.pdf"], "no partial file left")

        // An endpoint that answers nothing: the file is the raw body, octet-stream by default.
        try await api.attachments.replace(path: "docs/photo.png", fileURL: source)
        let replace = try #require(transport.lastRequest)
        #expect(replace.httpMethod == "PUT")
        #expect(replace.url?.absoluteString == "http://127.0.0.1:9/api/files/docs/photo.png")
        #expect(replace.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(replace.httpBody == Data([9, 8, 7, 6]))

        // A file that is not there is refused before anything is sent.
        await #expect(throws: SelfDBError.self) {
            try await api.attachments.upload(for: noteID, name: "b.png", fileURL: folder.appendingPathComponent("missing.png"))
        }
        #expect(transport.requestCount == 3)
    }

    /// A `form` body streamed from a file goes out byte for byte as the `Data` variant's, but
    /// for the random boundary; the form copied into the temporary folder is gone afterwards.
    @Test func streamedFormBodiesSendTheSameMultipartBytes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-form-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("notes.zip")
        // More than the 1 MiB the copy moves at a time, so the copy loops.
        let bytes = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: source)
        let answer = RecordingTransport.Reply(status: 200, body: #"{"path":"x","size":4}"#)
        let (api, transport) = api([answer, answer])
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        let sent = Locked<[TransferProgress]>([])
        _ = try await api.attachments.unpack(for: noteID, archive: bytes)
        _ = try await api.attachments.unpack(for: noteID, fileURL: source) { progress in sent.withLock { $0.append(progress) } }
        let (inMemory, streamed) = (transport.requests[0], transport.requests[1])
        #expect(streamed.httpMethod == "POST")
        #expect(streamed.url == inMemory.url)
        #expect(streamed.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        /// The body with its boundary (from the Content-Type) replaced by a fixed one.
        func normalized(_ request: URLRequest) throws -> Data {
            let contentType = try #require(request.value(forHTTPHeaderField: "Content-Type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary=selfdb-"))
            let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
            var body = try #require(request.httpBody)
            // The body is binary: its bytes, not a string, have the boundary replaced.
            while let range = body.range(of: Data(boundary.utf8)) { body.replaceSubrange(range, with: Data("BOUNDARY".utf8)) }
            return body
        }
        let form = try normalized(streamed)
        #expect(form == (try normalized(inMemory)))
        #expect(form.count == bytes.count + 127)
        #expect(String(decoding: form.prefix(120), as: UTF8.self).contains(#"name="upload"; filename="upload"\#r\#nContent-Type: application/zip"#))
        #expect(sent.withLock { $0.last?.bytesDone } == streamed.httpBody.map { Int64($0.count) }, "the bytes of the form as sent")
        let composed = try #require(transport.uploadedFiles.first)
        #expect(composed != source, "the form, not the file, is what goes out")
        #expect(!FileManager.default.fileExists(atPath: composed.path), "the form's copy is removed once sent")

        // A file that is not there is refused before anything is copied or sent.
        await #expect(throws: SelfDBError.self) {
            try await api.attachments.unpack(for: noteID, fileURL: folder.appendingPathComponent("missing.zip"))
        }
        #expect(transport.requestCount == 2)
    }

    @Test func flattenedBodiesAndDefaults() async throws {
        let (api, transport) = api([.init(status: 201, body: noteJSON)])
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        _ = try await api.notes.create(title: "Hello")
        let body = try #require(transport.lastRequest?.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == #"{"title":"Hello"}"#, "nil optionals are left out of bodies")
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func errorStatusesMapToTypedErrors() async throws {
        let (api, _) = api([
            .init(status: 404, body: #"{"detail":"Note not found"}"#),
            .init(status: 422, body: #"{"detail":[{"type":"missing","loc":["body","title"],"msg":"Field required","input":{}}]}"#),
            .init(status: 503, body: #"{"error":"busy"}"#, headers: ["Retry-After": "5"]),
            .init(status: 200, body: #"{"id":"not-a-uuid"}"#),
        ])
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        do {
            _ = try await api.notes.get(noteID)
            Issue.record("expected an error")
        } catch SelfDBError.notFound(let detail) {
            #expect(detail == "Note not found")
        }
        do {
            _ = try await api.notes.create(title: "")
            Issue.record("expected an error")
        } catch SelfDBError.validationFailed(let issues) {
            #expect(issues == [ValidationIssue(type: "missing", location: ["body", "title"], message: "Field required")])
        }
        do {
            try await api.notes.delete(noteID)
            Issue.record("expected an error")
        } catch SelfDBError.serviceUnavailable(let retryAfter, let detail) {
            #expect(retryAfter == 5)
            #expect(detail == "busy")
        }
        do {
            _ = try await api.notes.get(noteID)
            Issue.record("expected an error")
        } catch SelfDBError.invalidResponse(let detail) {
            #expect(detail.contains("Note"))
        }
    }

    @Test func transportFailuresBecomeConnectionErrors() async {
        let (api, _) = api([])
        do {
            _ = try await api.notes.list()
            Issue.record("expected an error")
        } catch SelfDBError.connectionError {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func idempotentRequestsAreRetriedOnServiceUnavailable() async throws {
        let (api, transport) = api(
            [
                .init(status: 503, body: #"{"detail":"busy"}"#, headers: ["Retry-After": "0"]),
                .init(status: 429, body: #"{"detail":"slow down"}"#, headers: ["Retry-After": "0"]),
                .init(status: 200, body: "3"),
            ],
            retry: RetryPolicy(maxAttempts: 3, baseDelay: 0)
        )
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        #expect(try await api.notes.count() == 3)
        #expect(transport.requestCount == 3)
    }

    @Test func postsAreNeverRetried() async throws {
        let (api, transport) = api(
            [
                .init(status: 503, body: #"{"detail":"busy"}"#, headers: ["Retry-After": "0"]),
                .init(status: 201, body: noteJSON),
            ],
            retry: RetryPolicy(maxAttempts: 3, baseDelay: 0)
        )
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        await #expect(throws: SelfDBError.self) { _ = try await api.notes.create(title: "once") }
        #expect(transport.requestCount == 1, "a POST that may have reached the server is not sent again")
    }

    @Test func retriesGiveUpAfterMaxAttempts() async throws {
        let busy = RecordingTransport.Reply(status: 503, body: #"{"detail":"busy"}"#, headers: ["Retry-After": "0"])
        let (api, transport) = api([busy, busy, busy, busy], retry: RetryPolicy(maxAttempts: 3, baseDelay: 0))
        await api.api.tokenStore.save(StoredSession(accessToken: "t", refreshToken: nil, expiresAt: nil))
        do {
            _ = try await api.notes.count()
            Issue.record("expected an error")
        } catch SelfDBError.serviceUnavailable(let retryAfter, _) {
            #expect(retryAfter == 0)
        }
        #expect(transport.requestCount == 3)
    }
}
