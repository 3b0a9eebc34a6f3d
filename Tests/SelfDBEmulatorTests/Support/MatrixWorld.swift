import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// The people of the authorization matrix, and the fresh objects each cell acts on.
struct MatrixWorld {
    typealias Cell = AuthorizationMatrixTests.Cell
    typealias Answer = AuthorizationMatrixTests.Answer

    let client: APIClient
    let owner: (id: String, token: String)
    let other: (id: String, token: String)
    let admin: String

    init(client: APIClient) async throws {
        self.client = client
        owner = try await client.newUser("matrix-owner@example.com")
        other = try await client.newUser("matrix-other@example.com")
        admin = try await client.adminToken()
    }

    /// What a cell acts on, made by its owner.
    private struct Objects {
        var name: String
        var ownerToken: String
        var tableID = ""
        var rowID = ""
        var bucketID = ""
        var fileID = ""
        var filePath = ""
        var userID = ""
    }

    /// Makes the cell's objects, sends its request as its caller, and reads the answer.
    func perform(_ cell: Cell, number: Int) async throws -> Answer {
        // Fixed width, so no name is part of another and a search finds exactly one.
        let name = "cell" + String(format: "%03d", number)
        let objects = try await make(cell.subject, name: name)
        let token: String? =
            switch cell.caller {
            case .anonymous: nil
            case .owner: objects.ownerToken
            case .other: other.token
            case .admin: admin
            }
        return try await send(cell.action, on: objects, token: token)
    }

    private func make(_ subject: AuthorizationMatrixTests.Subject, name: String) async throws -> Objects {
        var objects = Objects(name: name, ownerToken: owner.token)
        switch subject {
        case .privateTable, .publicTable, .plainTable:
            let plain = subject == .plainTable
            let schema: JSONValue =
                plain
                ? ["id": ["type": "uuid"], "title": ["type": "text"], "note": ["type": "text"]]
                : ["id": ["type": "uuid"], "title": ["type": "text"], "note": ["type": "text"], "user_id": ["type": "uuid"]]
            let row: JSONValue = plain ? ["title": "a"] : ["title": "a", "user_id": .string(owner.id)]
            objects.tableID = try await client.newTable(name, schema: schema, public: subject == .publicTable, token: owner.token)
            let inserted = try await client.send("POST", "/tables/\(objects.tableID)/data", json: row, token: owner.token)
            objects.rowID = try #require(inserted.json?["data"]?["id"]?.stringValue, "insert failed: \(inserted.text)")
        case .privateBucket, .publicBucket, .privateFile, .publicFile:
            let bucketName = "cell-" + name.dropFirst(4)
            let isPublic = subject == .publicBucket || subject == .publicFile
            objects.name = bucketName
            objects.bucketID = try await client.newBucket(bucketName, public: isPublic, token: owner.token)
            let uploaded = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", objects.bucketID), ("filename", "f.txt")],
                raw: Array("file".utf8),
                token: owner.token
            )
            objects.fileID = try #require(uploaded.json?["file_id"]?.stringValue, "upload failed: \(uploaded.text)")
            objects.filePath = try #require(uploaded.json?["path"]?.stringValue)
        case .user:
            let user = try await client.newUser("\(name)@example.com")
            objects.userID = user.id
            objects.ownerToken = user.token
        }
        return objects
    }

    private func send(_ action: AuthorizationMatrixTests.Action, on objects: Objects, token: String?) async throws -> Answer {
        let table = "/tables/\(objects.tableID)"
        let bucket = "/storage/buckets/\(objects.bucketID)"
        let file = "/storage/files/\(objects.fileID)"
        let user = "/users/\(objects.userID)"
        let response: APIResponse
        switch action {
        case .getTable: response = try await client.send("GET", table, token: token)
        case .getRows: response = try await client.send("GET", "\(table)/data", token: token)
        case .searchRows: response = try await client.send("GET", "\(table)/data", query: [("search", "a")], token: token)
        case .insertRow: response = try await client.send("POST", "\(table)/data", json: ["title": "b"], token: token)
        case .updateRow: response = try await client.send("PATCH", "\(table)/data/\(objects.rowID)", json: ["title": "c"], token: token)
        case .deleteRow: response = try await client.send("DELETE", "\(table)/data/\(objects.rowID)", token: token)
        case .updateTable: response = try await client.send("PATCH", table, json: ["description": "changed"], token: token)
        case .addColumn: response = try await client.send("POST", "\(table)/columns", json: ["name": "extra", "type": "text"], token: token)
        case .updateColumn: response = try await client.send("PATCH", "\(table)/columns/note", json: ["nullable": true], token: token)
        case .deleteColumn: response = try await client.send("DELETE", "\(table)/columns/note", token: token)
        case .deleteTable: response = try await client.send("DELETE", table, token: token)
        case .listTables: return try await listed(objects.tableID, in: "/tables/", search: objects.name, token: token)
        case .countTables: return try await counted(in: "/tables/count", search: objects.name, token: token)
        case .getBucket: response = try await client.send("GET", bucket, token: token)
        case .listFiles: response = try await client.send("GET", "/storage/files/", query: [("bucket_id", objects.bucketID)], token: token)
        case .upload:
            response = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", objects.bucketID), ("filename", "g.txt")],
                raw: Array("more".utf8),
                token: token
            )
        case .updateBucket: response = try await client.send("PATCH", bucket, json: ["description": "changed"], token: token)
        case .deleteBucket: response = try await client.send("DELETE", bucket, token: token)
        case .listBuckets: return try await listed(objects.bucketID, in: "/storage/buckets/", search: objects.name, token: token)
        case .countBuckets: return try await counted(in: "/storage/buckets/count", search: objects.name, token: token)
        case .getFile: response = try await client.send("GET", file, token: token)
        case .download: response = try await client.send("GET", "/storage/files/download/\(objects.name)/\(objects.filePath)", token: token)
        case .updateFile: response = try await client.send("PATCH", file, json: ["tag": "x"], token: token)
        case .deleteFile: response = try await client.send("DELETE", file, token: token)
        case .listUsers: response = try await client.send("GET", "/users/", token: token)
        case .getUser: response = try await client.send("GET", user, token: token)
        case .me: response = try await client.send("GET", "/users/me", token: token)
        case .countUsers: response = try await client.send("GET", "/users/count", token: token)
        case .updateUser: response = try await client.send("PATCH", user, json: ["firstName": "Changed"], token: token)
        case .deleteUser: response = try await client.send("DELETE", user, token: token)
        case .createUser:
            response = try await client.send(
                "POST",
                "/users/",
                json: ["email": .string("new-\(objects.name)@example.com"), "password": "Password123", "firstName": "N", "lastName": "U"],
                token: token
            )
        }
        return .status(response.status)
    }

    /// Whether a list (searched for the object's unique name) includes `id`.
    private func listed(_ id: String, in path: String, search: String, token: String?) async throws -> Answer {
        let response = try await client.send("GET", path, query: [("search", search)], token: token)
        guard response.status == 200, let items = response.json?.arrayValue else { return .status(response.status) }
        return items.contains { $0["id"]?.stringValue == id } ? .included : .excluded
    }

    /// Whether a count (searched for the object's unique name) counts it.
    private func counted(in path: String, search: String, token: String?) async throws -> Answer {
        let response = try await client.send("GET", path, query: [("search", search)], token: token)
        guard response.status == 200, let count = response.json?.intValue else { return .status(response.status) }
        return count == 1 ? .included : count == 0 ? .excluded : .status(-1)
    }
}
