import Foundation
import Logging
import SelfDB

/// Sends the queued uploads in order, one drain at a time, each exactly once.
///
/// An upload whose send may have reached the server unanswered is settled by looking before
/// it is sent again: SelfDB stores a second upload to a taken path as `name (1).ext`, so a
/// blind resend would store the file twice. The server's files of the bucket are searched for
/// one at the asked path (or a numbered one beside it) with the upload's size and owner,
/// created after the send began, that no other upload of this cache became.
actor UploadSender {
    private let storage: any CacheStorage
    private let logger: Logger
    private var tail: Task<UploadReport, Never>?

    init(storage: any CacheStorage, logger: Logger) {
        self.storage = storage
        self.logger = logger
    }

    /// What a drain did.
    struct UploadReport: Sendable {
        var sent = 0
        var failed: [CacheError] = []
        var remaining = 0
        var stoppedBy: CacheError?
    }

    /// Sends every pending upload through `selfdb`, after any drain already running.
    func drain(_ selfdb: SelfDB) async -> UploadReport {
        let previous = tail
        let task = Task {
            _ = await previous?.value
            var report = await self.sendAll(selfdb)
            report.remaining = (try? self.storage.pendingUploadCount()) ?? 0
            return report
        }
        tail = task
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func sendAll(_ selfdb: SelfDB) async -> UploadReport {
        var report = UploadReport()
        while true {
            if Task.isCancelled {
                report.stoppedBy = .cancelled
                return report
            }
            let record: UploadRecord
            do {
                guard let next = try storage.nextPendingUpload() else { return report }
                record = next
                if record.attempted, let stored = try await probe(record, selfdb) {
                    logger.info("cache: upload \(record.upload.id) was stored by an earlier send; not sending it again")
                    try settle(record, fileID: stored.id, path: stored.path)
                    report.sent += 1
                    continue
                }
                try storage.markUploadAttempted(record.sequence, true, at: Date())
            } catch {
                report.stoppedBy = Self.cacheError(error)
                return report
            }
            do {
                let answer = try await selfdb.storage.files.upload(
                    record.upload.bucketId,
                    filename: record.upload.filename,
                    fileURL: URL(fileURLWithPath: record.localFile),
                    path: record.upload.path,
                    contentType: record.contentType
                )
                try settle(record, fileID: answer.fileId, path: answer.path)
                report.sent += 1
            } catch {
                let failure = error.clientError
                if failure?.delivery == .notSent { try? storage.markUploadAttempted(record.sequence, false, at: nil) }
                if let failure, !failure.isTransient, (failure.status ?? 0) < 500 {
                    logger.warning("cache: upload \(record.upload.id) refused (\(failure.status ?? 0))")
                    try? storage.failUpload(record.sequence, reason: failure.description)
                    try? FileManager.default.removeItem(atPath: record.localFile)
                    report.failed.append(.rejected(failure))
                    continue
                }
                report.stoppedBy = Self.cacheError(error)
                return report
            }
        }
    }

    /// The upload is done: recorded, and the cache's copy removed.
    private func settle(_ record: UploadRecord, fileID: UUID, path: String) throws {
        try storage.finishUpload(record.sequence, fileID: fileID, path: path)
        try? FileManager.default.removeItem(atPath: record.localFile)
    }

    /// The server's file an earlier send of `record` became, if any.
    private func probe(_ record: UploadRecord, _ selfdb: SelfDB) async throws -> FileResponse? {
        let me = try await selfdb.auth.me().id
        let claimed = try storage.claimedFileIDs()
        let wanted = record.upload.path
        let stem = (URL(fileURLWithPath: wanted).lastPathComponent as NSString).deletingPathExtension
        // Clocks differ: a minute's allowance before the send began.
        let since = (record.attemptStarted ?? .distantPast).addingTimeInterval(-60)
        var page = 1
        while true {
            let listed = try await selfdb.storage.files.list(bucketId: record.upload.bucketId, page: page, pageSize: 100, search: stem)
            if let found = listed.files.first(where: { file in
                file.size == record.upload.size && file.ownerId == me && file.createdAt >= since
                    && !claimed.contains(file.id.uuidString.lowercased()) && Self.isPath(file.path, aVersionOf: wanted)
            }) {
                return found
            }
            guard listed.files.count == 100 else { return nil }
            page += 1
        }
    }

    /// Whether `path` is `wanted`, or the `name (N).ext` SelfDB stores a second upload as.
    static func isPath(_ path: String, aVersionOf wanted: String) -> Bool {
        if path == wanted { return true }
        let folder = (wanted as NSString).deletingLastPathComponent
        let name = (wanted as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = (name as NSString).deletingPathExtension
        guard (path as NSString).deletingLastPathComponent == folder else { return false }
        let candidate = (path as NSString).lastPathComponent
        let suffix = ext.isEmpty ? "" : ".\(ext)"
        guard candidate.hasPrefix("\(stem) ("), candidate.hasSuffix(")\(suffix)") else { return false }
        let number = candidate.dropFirst(stem.count + 2).dropLast(suffix.count + 1)
        return !number.isEmpty && number.allSatisfy(\.isNumber)
    }

    private static func cacheError(_ error: any Error) -> CacheError {
        if let error = error as? CacheError { return error }
        if error is CancellationError { return .cancelled }
        guard let failure = error.clientError else { return .storage("\(error)") }
        return failure.isTransient || (failure.status ?? 0) >= 500 ? .offline(failure) : .rejected(failure)
    }
}
