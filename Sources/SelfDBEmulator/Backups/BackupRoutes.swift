import EmulatorSupport
import Foundation
import Hummingbird

/// `/backups...`: SelfDB's backup archives, admins only but for the restore.
///
/// SelfDB's archives hold a `pg_dump` of PostgreSQL, its `.env` and the storage volume; the
/// emulator has none of those to dump or restore. It lists, serves and deletes the archives
/// in its data directory's `backups/` exactly as SelfDB does with its `/backups` (so a test
/// can put one there), and answers making or restoring one with the real shapes and a reason
/// that names the emulator (the emulator's own data is one SQLite file and a `storage/`
/// folder: copy the data directory while it is stopped).
enum BackupRoutes {
    static let unsupported = "the SelfDB emulator makes no SelfDB backups: copy its data directory while it is stopped"

    static func register(in table: inout RouteTable) {
        table.add(.get, "/backups", list)
        table.add(.post, "/backups", create)
        // SelfDB declares these so that they answer its own 405, not a 404 from `/{filename}`.
        for method in [HTTPRequest.Method.delete, .get, .put, .patch] {
            table.add(method, "/backups/restore", restoreMethodNotAllowed)
        }
        table.add(.post, "/backups/restore", body: .file, restore)
        table.add(.get, "/backups/{filename}/download", download)
        table.add(.delete, "/backups/{filename}", delete)
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.backups.require(request, services)
        return .json(.array(services.backups.list().map(\.json)))
    }

    /// A failed backup is SelfDB's 500 with the reason.
    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.backups.require(request, services)
        throw APIError(status: .internalServerError, detail: "Backup failed: \(unsupported)")
    }

    static func restoreMethodNotAllowed(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        throw APIError(status: .methodNotAllowed, detail: "Method not allowed", headers: [.allow: "POST"])
    }

    /// No user needed, on SelfDB as here: only a fresh install (no sign-in yet) accepts one.
    static func restore(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        // Spooled to disk as it arrived, and read mapped: an archive of any size, as SelfDB's
        // UploadFile spools one, never sits in memory.
        let body = try request.bodyFile.map { try Data(contentsOf: $0, options: .alwaysMapped) } ?? Data()
        let form = try body.withUnsafeBytes { bytes in
            try MultipartForm(contentType: request.headers[.contentType], body: bytes)
        }
        guard let archive = form?.files["file"] else { throw APIError.validation([.missing(.body, "file")]) }
        if try await SystemRoutes.isInitialized(services) {
            throw APIError.forbidden("System is already initialized. Restore is only available on fresh installs.")
        }
        guard !archive.isEmpty else { throw APIError.badRequest("Uploaded file is empty") }
        throw APIError.badRequest("Restore failed: \(unsupported)")
    }

    static func download(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.backups.require(request, services)
        let filename = request.parameter("filename")
        guard let url = services.backups.file(named: filename), let (size, handle) = try? FileHandle.forStreaming(url) else {
            throw APIError.notFound("Backup file not found")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/gzip",
                .contentLength: String(size),
                .contentDisposition: FileRoutes.contentDisposition(filename),
            ],
            body: .streaming(handle, size: size)
        )
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.backups.require(request, services)
        let filename = request.parameter("filename")
        guard let url = services.backups.file(named: filename), (try? FileManager.default.removeItem(at: url)) != nil else {
            throw APIError.notFound("Backup file not found")
        }
        return .json(.object(JSONObject([("message", .string("Backup \(filename) deleted successfully"))])))
    }
}
