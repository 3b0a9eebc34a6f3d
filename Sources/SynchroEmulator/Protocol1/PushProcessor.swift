import GRDB

/// Applies pushed changes for one user, each in its own savepoint so that one change's
/// failure never undoes another's.
struct PushProcessor {
    let schema: SyncSchema
    let user: String
    let toleranceMilliseconds: Int64
    /// Consumes one pending injected failure of the given kind, if any.
    let takeFailure: @Sendable (SyncPushFailure) -> Bool

    enum Operation: String {
        case create, update, delete
    }

    /// A write that did not happen; answered `rejected_retryable` with `reason`.
    private struct WriteFailure: Error {
        var reason: String
    }

    /// The answer for `change`, with its effects applied inside `db`'s transaction.
    func process(_ change: PushChange, in db: Database) -> PushResult {
        guard let table = schema.table(change.table) else {
            return PushResult(change, .rejectedTerminal, reason: "table_not_registered", message: "table '\(change.table)' is not synced")
        }
        // Protocol 1 always forces ownership: `push: enabled` on an owned table (the bare
        // protocol-2 server's behaviour) is `owner_only` here, as the 0.1 server has no other.
        guard table.pushPolicy != .disabled else {
            return PushResult(change, .rejectedTerminal, reason: "table_read_only", message: "table '\(table.name)' is read-only")
        }
        guard let operation = Operation(rawValue: change.operation) else {
            return PushResult(change, .rejectedTerminal, reason: "invalid_operation", message: "unknown operation '\(change.operation)'")
        }
        guard !change.id.isEmpty else {
            return PushResult(change, .rejectedTerminal, reason: "invalid_data", message: "id must not be empty")
        }
        var result = PushResult(change, .rejectedRetryable, reason: "internal_error", message: "internal error")
        do {
            try db.inSavepoint {
                if takeFailure(.internalError) { return .rollback }
                result = try apply(operation, change, table: table, id: change.id.lowercased(), in: db)
                return result.status == .applied ? .commit : .rollback
            }
        } catch let failure as WriteFailure {
            result = PushResult(change, .rejectedRetryable, reason: failure.reason, message: "the write failed; retry later")
        } catch {
            result = PushResult(change, .rejectedRetryable, reason: "internal_error", message: "internal error")
        }
        return result
    }

    private func apply(_ operation: Operation, _ change: PushChange, table: SyncTable, id: String, in db: Database) throws -> PushResult {
        let existing = try SyncRowStore.find(table, id: id, in: db)
        if let existing, existing.owner != user {
            // Someone else's row: say nothing about it.
            return operation == .create
                ? PushResult(change, .rejectedTerminal, reason: "invalid_data", message: "id is already in use")
                : PushResult(change, .rejectedTerminal, reason: "record_not_found", message: "record not found")
        }
        switch operation {
        case .create:
            guard let existing else { return try create(change, table: table, id: id, in: db) }
            guard existing.isDeleted else {
                return conflict(change, existing, table, reason: "record_exists", message: "record already exists")
            }
            return try write(change, over: existing, table: table, resurrecting: true, in: db)
        case .update:
            guard let existing else {
                return PushResult(change, .rejectedTerminal, reason: "record_not_found", message: "record not found")
            }
            guard !existing.isDeleted else {
                return conflict(change, existing, table, reason: "record_deleted", message: "record is deleted")
            }
            return try write(change, over: existing, table: table, resurrecting: false, in: db)
        case .delete:
            guard let existing else {
                return PushResult(change, .rejectedTerminal, reason: "record_not_found", message: "record not found")
            }
            if let deletedAt = existing.deletedAt {
                var result = PushResult(change, .applied, reason: "already_deleted", message: "record already deleted")
                result.serverDeletedAt = deletedAt
                return result
            }
            let stamp = nextStamp(after: existing)
            try performWrite(reason: "delete_failed") {
                try SyncRowStore.update(
                    table,
                    id: id,
                    values: [(table.deletedAtColumn, stamp.text.databaseValue), (table.updatedAtColumn, stamp.text.databaseValue)],
                    in: db
                )
                try ChangeLog.append(.delete, table: table.name, recordID: id, owner: user, in: db)
            }
            var result = PushResult(change, .applied)
            result.serverDeletedAt = stamp
            return result
        }
    }

    private func create(_ change: PushChange, table: SyncTable, id: String, in db: Database) throws -> PushResult {
        guard let data = change.data?.objectValue else {
            return invalidData(change, "data must be an object")
        }
        let stamp = SyncTimestamp.now()
        var values: [(column: String, value: DatabaseValue)] = []
        for column in table.columns {
            switch column.name {
            case table.primaryKey:
                values.append((column.name, id.databaseValue))
            case table.ownerColumn:
                values.append((column.name, user.databaseValue))
            case table.updatedAtColumn:
                values.append((column.name, stamp.text.databaseValue))
            case table.deletedAtColumn:
                values.append((column.name, .null))
            case table.parentKeyColumn:
                guard let parentID = data[column.name]?.stringValue?.lowercased(), !parentID.isEmpty else {
                    return invalidData(change, "column '\(column.name)' must name the parent record")
                }
                guard try ownsParent(parentID, of: table, in: db) else {
                    return invalidData(change, "parent \(table.parentTable ?? "")/\(parentID) not found")
                }
                values.append((column.name, parentID.databaseValue))
            default:
                let sent = data[column.name] ?? column.defaultValue
                guard let sent else {
                    guard column.nullable else { return invalidData(change, "column '\(column.name)' is required") }
                    values.append((column.name, .null))
                    continue
                }
                do {
                    values.append((column.name, try SyncValueCoding.storable(sent, for: column)))
                } catch {
                    return invalidData(change, error.message)
                }
            }
        }
        try performWrite(reason: "create_failed") {
            try SyncRowStore.insert(table, owner: user, values: values, in: db)
            try ChangeLog.append(.create, table: table.name, recordID: id, owner: user, in: db)
        }
        var result = PushResult(change, .applied)
        result.serverUpdatedAt = stamp
        return result
    }

    /// An update, or a create over a soft-deleted row (which brings it back). Both are
    /// judged by the conflict rule against the row's `updated_at`.
    private func write(_ change: PushChange, over existing: StoredRow, table: SyncTable, resurrecting: Bool, in db: Database) throws -> PushResult {
        let server = existing.updatedAt ?? SyncTimestamp(milliseconds: 0)
        let verdict = ConflictRule.resolve(
            server: server,
            client: change.clientUpdatedAt,
            base: change.baseUpdatedAt,
            toleranceMilliseconds: toleranceMilliseconds
        )
        guard verdict.winner == .client else {
            return conflict(change, existing, table, reason: "server_won_conflict", message: verdict.reason)
        }
        guard let data = change.data?.objectValue else {
            return invalidData(change, "data must be an object")
        }
        let protected = table.protectedColumns
        var values: [(column: String, value: DatabaseValue)] = []
        for (name, sent) in data where !protected.contains(name) {
            // Columns the server does not know (local-only ones) are ignored, not refused.
            guard let column = table.column(name) else { continue }
            do {
                values.append((name, try SyncValueCoding.storable(sent, for: column)))
            } catch {
                return invalidData(change, error.message)
            }
        }
        let stamp = nextStamp(after: existing)
        values.append((table.updatedAtColumn, stamp.text.databaseValue))
        if resurrecting {
            values.append((table.deletedAtColumn, .null))
        }
        try performWrite(reason: resurrecting ? "resurrection_failed" : "update_failed") {
            try SyncRowStore.update(table, id: existing.id, values: values, in: db)
            try ChangeLog.append(resurrecting ? .create : .update, table: table.name, recordID: existing.id, owner: user, in: db)
        }
        var result = PushResult(change, .applied)
        result.serverUpdatedAt = stamp
        return result
    }

    /// Whether the parent row exists and belongs to the caller (a soft-deleted parent
    /// still counts: its children may arrive after it was deleted elsewhere).
    private func ownsParent(_ parentID: String, of table: SyncTable, in db: Database) throws -> Bool {
        guard let parentTable = table.parentTable.flatMap(schema.table) else { return false }
        return try SyncRowStore.find(parentTable, id: parentID, in: db)?.owner == user
    }

    /// Now, but always after the row's current `updated_at`, so every write gives the row a
    /// new version even within one millisecond.
    private func nextStamp(after existing: StoredRow) -> SyncTimestamp {
        max(SyncTimestamp.now(), (existing.updatedAt ?? SyncTimestamp(milliseconds: 0)).adding(milliseconds: 1))
    }

    private func performWrite(reason: String, _ body: () throws -> Void) throws {
        if takeFailure(.writeFailed) { throw WriteFailure(reason: reason) }
        do {
            try body()
        } catch {
            throw WriteFailure(reason: reason)
        }
    }

    private func conflict(_ change: PushChange, _ existing: StoredRow, _ table: SyncTable, reason: String, message: String) -> PushResult {
        var result = PushResult(change, .conflict, reason: reason, message: message)
        result.serverVersion = existing.record(in: table)
        return result
    }

    private func invalidData(_ change: PushChange, _ message: String) -> PushResult {
        PushResult(change, .rejectedTerminal, reason: "invalid_data", message: message)
    }
}
