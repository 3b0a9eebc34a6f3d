import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// The upload answer and file records exactly as a running SelfDB v0.0.5 sends them (the
/// bodies below are copied from one), and the other forms the contract allows. Before the
/// spec marked these fields lenient, `upload_time` — a number of seconds — failed every
/// upload with `invalidResponse`.
@Suite("SelfDB's wire forms decode")
struct WireFormDecodingTests {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONCoding.makeDecoder().decode(T.self, from: Data(json.utf8))
    }

    static let fileID = "6f0d1c1e-3b1a-4e55-9b8e-2d7f3c9a1b20"

    @Test func uploadResponseAsSelfDBSendsIt() throws {
        let json = """
            {"success":true,"bucket":"docs","path":"notes/a.txt","size":5,"file_id":"\(Self.fileID)",
             "upload_time":0.0055,"url":"/api/storage/files/docs/notes/a.txt","original_path":null,
             "message":"File uploaded successfully"}
            """
        let upload = try Self.decode(FileUploadResponse.self, json)
        #expect(upload.fileId == UUID(uuidString: Self.fileID))
        #expect(upload.path == "notes/a.txt")
        #expect(upload.size == 5)
        #expect(upload.uploadTime == 0.0055)
        #expect(upload.url == "/api/storage/files/docs/notes/a.txt")
        #expect(upload.originalPath == nil)
    }

    @Test func uploadResponseOfARenamedDuplicate() throws {
        let json = """
            {"success":true,"bucket":"docs","path":"notes/a (1).txt","size":5,"file_id":"\(Self.fileID)",
             "upload_time":1,"url":"/api/storage/files/docs/notes/a (1).txt","original_path":"notes/a.txt",
             "message":"File uploaded successfully"}
            """
        let upload = try Self.decode(FileUploadResponse.self, json)
        #expect(upload.originalPath == "notes/a.txt")
        #expect(upload.uploadTime == 1)
    }

    /// Forms the SDK does not rely on may change without failing the call: a timestamp where
    /// seconds were (what the emulator used to send), keys left out, other JSON types.
    @Test(
        "other forms of the fields the SDK does not rely on",
        arguments: [
            #""upload_time":"2025-01-02T03:04:05.123456Z","url":"/x","original_path":null,"message":"ok""#,
            #""success_extra":1"#,
            #""upload_time":null,"url":null,"original_path":null,"message":null"#,
            #""upload_time":{"seconds":1},"url":42,"original_path":["a"],"message":false"#,
        ]
    )
    func uploadResponseTolerates(_ fields: String) throws {
        let json = #"{"success":true,"bucket":"docs","path":"p","size":1,"file_id":"\#(Self.fileID)",\#(fields)}"#
        let upload = try Self.decode(FileUploadResponse.self, json)
        #expect(upload.fileId == UUID(uuidString: Self.fileID))
        #expect(upload.path == "p")
    }

    /// What the SDK relies on still fails loudly when it is wrong.
    @Test func uploadResponseWithoutAFileIDFails() {
        #expect(throws: DecodingError.self) {
            try Self.decode(FileUploadResponse.self, #"{"success":true,"bucket":"docs","path":"p","size":1,"upload_time":0.1}"#)
        }
    }

    @Test func fileResponseAsSelfDBSendsIt() throws {
        let json = """
            {"id":"\(Self.fileID)","bucket_id":"0a8f1e44-52c4-4c5e-8d1f-7e2b6c3d4a59","name":"a.txt","path":"notes/a.txt",
             "size":5,"mime_type":"text/plain","owner_id":"5b1e2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","metadata":{},
             "checksum_sha256":null,"version":1,"is_latest":true,"deleted_at":null,
             "created_at":"2025-11-20T10:11:12.345678Z","updated_at":"2025-11-20T10:11:12.345678Z"}
            """
        let file = try Self.decode(FileResponse.self, json)
        #expect(file.checksumSha256 == nil)
        #expect(file.version == 1)
        #expect(file.isLatest == true)
        #expect(file.name == "a.txt")
    }

    @Test(
        "FileResponse fields the SDK does not rely on may vary",
        arguments: [
            #""checksum_sha256":"ab12","version":"1","is_latest":1,"deleted_at":12345,"updated_at":"yesterday""#,
            #""checksum_sha256":null"#,
        ]
    )
    func fileResponseTolerates(_ fields: String) throws {
        let json = """
            {"id":"\(Self.fileID)","bucket_id":"0a8f1e44-52c4-4c5e-8d1f-7e2b6c3d4a59","name":"a.txt","path":"a.txt",
             "size":5,"created_at":"2025-11-20T10:11:12Z",\(fields)}
            """
        let file = try Self.decode(FileResponse.self, json)
        #expect(file.path == "a.txt")
        #expect(file.deletedAt == nil)
    }
}
