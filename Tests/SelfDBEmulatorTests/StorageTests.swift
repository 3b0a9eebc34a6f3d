import Foundation
import Testing

@testable import SelfDBEmulator

@Suite("Storage")
struct StorageTests {
    @Test func bucketCreateDuplicateAndValidation() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let created = try await client.send(
                "POST",
                "/storage/buckets/",
                json: ["name": "photos", "public": true, "description": "pics", "metadata": ["k": "v"]],
                token: token
            )
            #expect(created.status == 201)
            let bucket = try #require(created.json?.objectValue)
            #expect(bucket.keys == ["id", "name", "public", "description", "file_count", "total_size", "owner_id", "metadata", "created_at", "updated_at"])
            #expect(bucket["file_count"] == 0)
            let again = try await client.send("POST", "/storage/buckets/", json: ["name": "photos"], token: token)
            #expect(again.status == 201)
            #expect(again.json?["id"] == bucket["id"])
            #expect(try await client.send("POST", "/storage/buckets/", json: ["name": "Bad_Name"], token: token).issueTypes == ["string_pattern_mismatch"])
            #expect(try await client.send("POST", "/storage/buckets/", json: ["name": "ab-"], token: token).issueTypes == ["string_pattern_mismatch"])
            #expect(try await client.send("POST", "/storage/buckets/", json: ["name": "ok-bucket"]).status == 401)
        }
    }

    @Test func bucketListCountReadUpdateDelete() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let user = try await client.newUser("bucketeer@example.com")
            let open = try await client.newBucket("open-bucket", public: true, token: admin)
            let closed = try await client.newBucket("closed-bucket", public: false, token: admin)

            #expect(try await client.send("GET", "/storage/buckets/count").json == 1)
            #expect(try await client.send("GET", "/storage/buckets/count", token: admin).json == 2)
            #expect(try await client.send("GET", "/storage/buckets/count", query: [("search", "closed")], token: admin).json == 1)
            #expect(
                try await client.send("GET", "/storage/buckets/", query: [("sort_by", "name"), ("sort_order", "asc")], token: admin)
                    .json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["closed-bucket", "open-bucket"]
            )
            #expect(try await client.send("GET", "/storage/buckets/", query: [("sort_by", "size")]).issueTypes == ["literal_error"])
            #expect(try await client.send("GET", "/storage/buckets/", query: [("x", "1")]).status == 400)

            #expect(try await client.send("GET", "/storage/buckets/\(open)").status == 200)
            #expect(try await client.send("GET", "/storage/buckets/\(closed)").status == 401)
            // A private bucket is open to any signed-in user (SelfDB v0.0.5); changing it is the owner's.
            #expect(try await client.send("GET", "/storage/buckets/\(closed)", token: user.token).status == 200)
            #expect(try await client.send("GET", "/storage/buckets/nope").status == 404)

            #expect(try await client.send("PATCH", "/storage/buckets/\(closed)", json: ["public": true], token: user.token).status == 403)
            #expect(try await client.send("PATCH", "/storage/buckets/\(closed)", json: ["name": "renamed"], token: admin).issueTypes == ["extra_forbidden"])
            let patched = try await client.send("PATCH", "/storage/buckets/\(closed)", json: ["public": true, "metadata": ["a": 1]], token: admin)
            #expect(patched.json?["public"] == true)
            #expect(patched.json?["metadata"] == ["a": 1])

            #expect(try await client.send("DELETE", "/storage/buckets/\(closed)", token: user.token).status == 403)
            let deleted = try await client.send("DELETE", "/storage/buckets/\(closed)", token: admin)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(try await client.send("GET", "/storage/buckets/\(closed)", token: admin).status == 404)
        }
    }

    @Test func uploadDownloadAndDuplicateRenaming() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            let bucket = try await client.newBucket("docs", public: true, token: token)
            let content = Array("hello, storage".utf8)
            let upload = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", bucket), ("filename", "note.txt"), ("path", "/folder/note.txt"), ("content_type", "text/plain")],
                raw: content,
                token: token,
                headers: ["Content-Type": "application/json"]
            )
            #expect(upload.status == 201)
            let uploaded = try #require(upload.json)
            #expect(uploaded["success"] == true)
            #expect(uploaded["bucket"] == "docs")
            #expect(uploaded["path"] == "folder/note.txt")
            #expect(uploaded["size"] == .int(Int64(content.count)))
            #expect(uploaded["original_path"] == .null)
            #expect(uploaded["url"]?.stringValue?.hasPrefix("/storage/files/download") == false)
            let fileID = try #require(uploaded["file_id"]?.stringValue)

            let duplicate = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", bucket), ("filename", "note.txt"), ("path", "folder/note.txt")],
                raw: Array("second".utf8),
                token: token
            )
            #expect(duplicate.json?["path"] == "folder/note (1).txt")
            #expect(duplicate.json?["original_path"] == "folder/note.txt")
            let third = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", bucket), ("filename", "note.txt"), ("path", "folder/note.txt")],
                raw: Array("third".utf8),
                token: token
            )
            #expect(third.json?["path"] == "folder/note (2).txt")

            let download = try await client.send("GET", "/storage/files/download/docs/folder/note.txt")
            #expect(download.status == 200)
            #expect(download.body == content)
            #expect(download.header("content-type") == "text/plain")
            #expect(download.header("content-disposition")?.hasPrefix("attachment") == true)
            let renamed = try await client.send("GET", "/storage/files/download/docs/folder/note%20(1).txt")
            #expect(renamed.text == "second")
            #expect(renamed.header("content-type") == "application/octet-stream")
            #expect(try await client.send("GET", "/storage/files/download/docs/missing.txt").status == 404)
            #expect(try await client.send("GET", "/storage/files/download/nobucket/x.txt").status == 404)

            // Bytes live on disk under the data directory.
            let blob = emulator.dataDirectory.appendingPathComponent("storage/\(bucket)/\(fileID)")
            #expect(try Data(contentsOf: blob) == Data(content))

            let info = try await client.send("GET", "/storage/files/\(fileID)")
            let file = try #require(info.json?.objectValue)
            #expect(
                file.keys == [
                    "id", "bucket_id", "name", "path", "size", "mime_type", "owner_id", "metadata", "checksum_sha256", "version",
                    "is_latest", "deleted_at", "created_at", "updated_at",
                ]
            )
            #expect(file["name"] == "note.txt")
            #expect(file["checksum_sha256"] == .null)  // SelfDB v0.0.5 never computes it
        }
    }

    @Test func uploadValidatesParametersAndAccess() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let user = try await client.newUser("uploader@example.com")
            let privateBucket = try await client.newBucket("vault", public: false, token: token)
            let publicBucket = try await client.newBucket("dropbox", public: true, token: token)
            let bytes = Array("x".utf8)
            #expect(try await client.send("POST", "/storage/files/upload", query: [("filename", "a.txt")], raw: bytes).issueTypes == ["missing"])
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", publicBucket)], raw: bytes).issueTypes == ["missing"])
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", "zzz"), ("filename", "a")], raw: bytes).issueTypes == ["uuid_parsing"])
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", publicBucket), ("filename", "a"), ("mode", "x")], raw: bytes).status == 400)
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", UUID().uuidString), ("filename", "a")], raw: bytes).status == 404)
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", privateBucket), ("filename", "a")], raw: bytes).status == 401)
            // Any signed-in user may upload to a private bucket and download from it (SelfDB v0.0.5).
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", privateBucket), ("filename", "a")], raw: bytes, token: user.token).status == 201)
            #expect(try await client.send("POST", "/storage/files/upload", query: [("bucket_id", publicBucket), ("filename", "a"), ("path", "../../etc/passwd")], raw: bytes).status == 400)
            // Anonymous uploads to public buckets are allowed.
            let anonymous = try await client.send("POST", "/storage/files/upload", query: [("bucket_id", publicBucket), ("filename", "anon.bin")], raw: bytes)
            #expect(anonymous.status == 201)
            _ = try await client.send("POST", "/storage/files/upload", query: [("bucket_id", privateBucket), ("filename", "secret.txt")], raw: bytes, token: token)
            #expect(try await client.send("GET", "/storage/files/download/vault/secret.txt").status == 401)
            #expect(try await client.send("GET", "/storage/files/download/vault/secret.txt", token: user.token).status == 200)
            #expect(try await client.send("GET", "/storage/files/download/vault/secret.txt", token: token).status == 200)
        }
    }

    @Test func fileListingCountsStatsUpdateAndDelete() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let other = try await client.newUser("file-other@example.com")
            let bucket = try await client.newBucket("media", public: true, token: token)
            var ids: [String] = []
            for (name, size) in [("a.txt", 3), ("b.txt", 5), ("c.log", 7)] {
                let response = try await client.send(
                    "POST",
                    "/storage/files/upload",
                    query: [("bucket_id", bucket), ("filename", name)],
                    raw: Array(repeating: 65, count: size),
                    token: token
                )
                ids.append(try #require(response.json?["file_id"]?.stringValue))
            }
            let list = try await client.send("GET", "/storage/files/", query: [("bucket_id", bucket), ("sort_by", "size"), ("sort_order", "asc"), ("page_size", "2")])
            #expect(list.json?["total"] == 3)
            #expect(list.json?["page_size"] == 2)
            #expect(list.json?["files"]?.arrayValue?.compactMap { $0["size"]?.intValue } == [3, 5])
            #expect(try await client.send("GET", "/storage/files/", query: [("bucket_id", bucket), ("search", ".log")]).json?["total"] == 1)
            #expect(try await client.send("GET", "/storage/files/").issueTypes == ["missing"])
            #expect(try await client.send("GET", "/storage/files/", query: [("bucket_id", bucket), ("limit", "2")]).status == 400)

            #expect(try await client.send("GET", "/storage/files/count", query: [("bucket_id", bucket)]).json == 3)
            #expect(try await client.send("GET", "/storage/files/count").issueTypes == ["missing"])
            #expect(try await client.send("GET", "/storage/files/total-count").json == 3)
            #expect(try await client.send("GET", "/storage/files/total-count", query: [("search", "b.")]).json == 1)
            #expect(try await client.send("GET", "/storage/files/stats").json == ["total_files": 3, "total_size": 15, "bucket_count": 1])
            #expect(try await client.send("GET", "/storage/files/stats", query: [("bucket_id", bucket)]).status == 400)
            #expect(try await client.send("GET", "/storage/buckets/\(bucket)").json?["file_count"] == 3)

            let patched = try await client.send("PATCH", "/storage/files/\(ids[0])", json: ["label": "first"], token: token)
            #expect(patched.status == 200)
            #expect(patched.json?["metadata"] == ["label": "first"])
            let replaced = try await client.send("PATCH", "/storage/files/\(ids[0])", json: ["other": true], token: token)
            #expect(replaced.json?["metadata"] == ["other": true])
            #expect(try await client.send("PATCH", "/storage/files/\(ids[0])", json: ["x": 1], token: other.token).status == 403)
            #expect(try await client.send("PATCH", "/storage/files/\(ids[0])", json: [1, 2], token: token).status == 422)

            #expect(try await client.send("DELETE", "/storage/files/\(ids[1])", token: other.token).status == 403)
            let deleted = try await client.send("DELETE", "/storage/files/\(ids[1])", token: token)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(try await client.send("GET", "/storage/files/\(ids[1])").status == 404)
            #expect(try await client.send("GET", "/storage/files/download/media/b.txt").status == 404)
            #expect(try await client.send("GET", "/storage/files/count", query: [("bucket_id", bucket)]).json == 2)
        }
    }
}
