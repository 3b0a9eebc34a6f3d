import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

extension ProtocolTwoServer {
    /// One pushed mutation, read and checked before anything is applied.
    struct Mutation {
        enum Operation: String {
            case insert, update, upsert, delete
        }

        var id: String
        var table: String
        var operation: Operation
        var pk: JSONObject
        var clientVersion: SyncTimestamp?
        var baseVersion: SyncTimestamp?
        var columns: JSONObject
    }

    /// `POST /sync/push` (§3.2). The checks run in the real server's order — shape (400), every
    /// mutation's timestamps (400), schema (422), registration (400) — then the mutations are
    /// applied in order inside one transaction, each with its own outcome.
    func push(_ body: ProtocolTwoBody, user: String) async throws -> Response {
        _ = try body.string("batch_id")
        let sentSchema = try body.schemaRef()
        guard let list = body.object["mutations"] else { throw body.invalid("missing field `mutations`") }
        guard let elements = list.arrayValue else { throw body.invalid("invalid type for `mutations`: expected an array") }
        var mutations: [Mutation] = []
        for (index, element) in elements.enumerated() {
            mutations.append(try Self.mutation(element, at: index, body: body))
        }
        try checkSchema(sentSchema)
        let serverTime = Self.serverTime()
        return try await pool.write { [mutations] db in
            _ = try ProtocolTwoStore.activeClient(user: user, clientID: body.clientID, in: db)
            // The server clock at the start of the transaction: every delete of the batch gets it.
            let deletedAt = SyncTimestamp.now()
            var accepted: [JSONValue] = []
            var rejected: [JSONValue] = []
            for mutation in mutations {
                // No savepoint per mutation. A refused mutation leaves nothing behind because
                // every refusal is decided before the mutation writes anything (checked here:
                // one that wrote fails the push instead), and an error thrown mid-write fails
                // the whole push, whose transaction rolls back. With a savepoint per mutation,
                // SQLite copied every page a mutation touched into its statement journal, which
                // doubled the cost of the writes (measured on the same statements in Python's
                // sqlite3).
                let changesBefore = db.totalChangesCount
                let outcome = try apply(mutation, user: user, deletedAt: deletedAt, in: db)
                if !outcome.isApplied, db.totalChangesCount != changesBefore {
                    throw SyncError(status: .internalServerError, message: "internal error: mutation \(mutation.id) was refused after a write")
                }
                // Synchro 0.3.0 runs the batch without subtransactions: an SQL error ends the
                // whole transaction, and the adapter answers a bare 500.
                if outcome.isDatabaseError, writeErrors == .rollBackBatch {
                    throw SyncError(status: .internalServerError, message: "internal error")
                }
                if outcome.isApplied { accepted.append(outcome.json) } else { rejected.append(outcome.json) }
            }
            var object = JSONObject()
            object["server_time"] = .string(serverTime)
            object["accepted"] = .array(accepted)
            object["rejected"] = .array(rejected)
            return .json(.object(object))
        }
    }

    private static func mutation(_ value: JSONValue, at index: Int, body: ProtocolTwoBody) throws(SyncError) -> Mutation {
        guard let object = value.objectValue else { throw body.invalid("mutations[\(index)]: expected an object") }
        func text(_ key: String) throws(SyncError) -> String {
            guard let text = object[key]?.stringValue else { throw body.invalid("mutations[\(index)]: missing or invalid `\(key)`") }
            return text
        }
        let rawOperation = try text("op")
        guard let operation = Mutation.Operation(rawValue: rawOperation) else {
            throw body.invalid("mutations[\(index)]: unknown variant `\(rawOperation)`, expected one of `insert`, `update`, `upsert`, `delete`")
        }
        guard let pk = object["pk"]?.objectValue else { throw body.invalid("mutations[\(index)]: missing or invalid `pk`") }
        func timestamp(_ key: String, required: Bool) throws(SyncError) -> SyncTimestamp? {
            guard let value = object[key], !value.isNull else {
                if required { throw body.invalid("mutations[\(index)]: \(key) is required for \(operation.rawValue)") }
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty, let instant = SyncTimestamp(parsing: text) else {
                throw body.invalid("mutations[\(index)]: \(key) is not an RFC 3339 timestamp")
            }
            return instant
        }
        let columns: JSONObject
        switch object["columns"] {
        case nil, .null?: columns = JSONObject()
        case .object(let sent)?: columns = sent
        default: throw body.invalid("mutations[\(index)]: invalid type for `columns`: expected an object")
        }
        return Mutation(
            id: try text("mutation_id"),
            table: try text("table"),
            operation: operation,
            pk: pk,
            clientVersion: try timestamp("client_version", required: operation != .delete),
            baseVersion: try timestamp("base_version", required: false),
            columns: columns
        )
    }

    // MARK: - Applying one mutation

    /// What happened to a mutation, as the response lists it.
    struct Outcome {
        var json: JSONValue
        var isApplied: Bool
        /// The database refused the write (a cast or type error): the real server's push
        /// fails as a whole on it.
        var isDatabaseError = false

        static func applied(_ mutation: Mutation, row: JSONValue?, version: String) -> Outcome {
            var object = echo(mutation)
            object["status"] = "applied"
            object["server_row"] = row
            object["server_version"] = .string(version)
            return Outcome(json: .object(object), isApplied: true)
        }

        static func conflict(_ message: String, for mutation: Mutation, row: JSONValue, version: String?) -> Outcome {
            var object = echo(mutation)
            object["status"] = "conflict"
            object["code"] = "version_conflict"
            object["message"] = .string(message)
            object["server_row"] = row
            object["server_version"] = version.map(JSONValue.string)
            return Outcome(json: .object(object), isApplied: false)
        }

        static func terminal(_ code: String, _ message: String, for mutation: Mutation) -> Outcome {
            var object = echo(mutation)
            object["status"] = "rejected_terminal"
            object["code"] = .string(code)
            object["message"] = .string(message)
            return Outcome(json: .object(object), isApplied: false)
        }

        /// `validation_failed` for a write the database itself refused.
        static func databaseError(_ message: String, for mutation: Mutation) -> Outcome {
            var outcome = terminal("validation_failed", message, for: mutation)
            outcome.isDatabaseError = true
            return outcome
        }

        static func retryable(_ message: String, for mutation: Mutation) -> Outcome {
            var object = echo(mutation)
            object["status"] = "rejected_retryable"
            object["code"] = "server_retryable"
            object["message"] = .string(message)
            return Outcome(json: .object(object), isApplied: false)
        }

        /// `mutation_id`, `table` and `pk` exactly as sent.
        private static func echo(_ mutation: Mutation) -> JSONObject {
            var object = JSONObject()
            object["mutation_id"] = .string(mutation.id)
            object["table"] = .string(mutation.table)
            object["pk"] = .object(mutation.pk)
            return object
        }
    }

    private func apply(_ mutation: Mutation, user: String, deletedAt: SyncTimestamp, in db: Database) throws -> Outcome {
        guard let table = schema.table(mutation.table) else {
            return .terminal("table_not_synced", "table \(mutation.table) is not synced", for: mutation)
        }
        guard let sentKey = mutation.pk[table.primaryKey]?.stringValue, !sentKey.isEmpty else {
            return .terminal("validation_failed", "pk must hold the string field \(table.primaryKey)", for: mutation)
        }
        if let keyColumn = table.column(table.primaryKey), keyColumn.databaseType == "uuid", !UUIDText.isUUID(sentKey) {
            return .databaseError("invalid input syntax for type uuid: \"\(sentKey)\"", for: mutation)
        }
        let id = sentKey.lowercased()
        guard table.pushPolicy != .disabled else {
            // The real server's message for `p_push_policy => 'read_only'` (Rust's {:?} quoting).
            return .terminal("policy_rejected", "table \"\(mutation.table)\" is read-only", for: mutation)
        }
        // Unsynced columns are ignored, as the real server keeps only `sync_columns`.
        let writable = mutation.columns.members.filter { table.syncedColumn($0.key) != nil && !table.pushProtectedColumns.contains($0.key) }
        let checksOwner = ownerOnly.applies(to: table)
        // Most inserts and upserts are of new records: written at once if no row has the key,
        // which spares the lookup. A row that has it, values an insert would refuse, or a row
        // that would not be the caller's take the general path below, which looks the row up
        // first and answers as before.
        if mutation.operation == .insert || mutation.operation == .upsert, uniquelyKeyedTables.contains(table.name),
            case .row(let values, let stamp) = try newRowValues(mutation, table: table, id: id, writable: writable)
        {
            let rowOwner = try owner(of: values, table: table, in: db)
            if !checksOwner || rowOwner == user,
                let inserted = try SyncRowStore.insertIfAbsent(table, owner: rowOwner ?? user, values: values, in: db)
            {
                return try written(mutation, table: table, id: id, version: stamp, row: inserted, isNew: true, in: db)
            }
        }
        let existing = try SyncRowStore.find(table, id: id, in: db)
        if checksOwner, let refusal = try ownerOnlyRefusal(mutation, existing: existing, table: table, writable: writable, user: user, in: db) {
            return refusal
        }
        switch (mutation.operation, existing) {
        case (.delete, nil), (.update, nil):
            return .terminal("validation_failed", "record does not exist", for: mutation)
        case (.delete, let row?):
            if let deleted = row.deletedAt { return .applied(mutation, row: ScopeMembership.wireRow(row, table), version: deleted.text) }
            try SyncRowStore.update(table, id: id, values: [(table.deletedAtColumn, deletedAt.text.databaseValue)], in: db)
            return try written(mutation, table: table, id: id, version: deletedAt, in: db)
        case (.insert, let row?) where !row.isDeleted:
            return .conflict("record already exists", for: mutation, row: ScopeMembership.wireRow(row, table), version: ScopeMembership.serverVersion(row))
        case (.update, let row?) where row.isDeleted, (.upsert, let row?) where row.isDeleted:
            return .conflict("record has been deleted", for: mutation, row: ScopeMembership.wireRow(row, table), version: ScopeMembership.serverVersion(row))
        case (.insert, let row?), (.update, let row?), (.upsert, let row?):
            return try update(mutation, over: row, table: table, writable: writable, in: db)
        case (.insert, nil), (.upsert, nil):
            return try insert(mutation, table: table, id: id, writable: writable, user: user, in: db)
        }
    }

    /// The values of a new row for `mutation`, every column in spec order, and its
    /// `updated_at`; or the refusal an insert of them gets.
    private enum NewRow {
        case row([(column: String, value: DatabaseValue)], stamp: SyncTimestamp)
        case refused(Outcome)
    }

    private func newRowValues(_ mutation: Mutation, table: SyncTable, id: String, writable: [(key: String, value: JSONValue)]) throws -> NewRow {
        guard !writable.isEmpty else { return .refused(.terminal("validation_failed", "no writable columns", for: mutation)) }
        let stamp = mutation.clientVersion ?? SyncTimestamp.now()
        let sent = Dictionary(writable.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        var values: [(column: String, value: DatabaseValue)] = []
        values.reserveCapacity(table.columns.count)
        for column in table.columns {
            switch column.name {
            case table.primaryKey: values.append((column.name, id.databaseValue))
            case table.updatedAtColumn: values.append((column.name, stamp.text.databaseValue))
            case table.deletedAtColumn: values.append((column.name, .null))
            default:
                guard let value = sent[column.name] ?? column.defaultValue, !value.isNull else {
                    if column.nullable {
                        values.append((column.name, .null))
                        continue
                    }
                    return .refused(.terminal("validation_failed", "missing required column \(column.name)", for: mutation))
                }
                do {
                    values.append((column.name, try Self.storable(value, for: column)))
                } catch {
                    return .refused(.databaseError(error.message, for: mutation))
                }
            }
        }
        return .row(values, stamp: stamp)
    }

    private func insert(_ mutation: Mutation, table: SyncTable, id: String, writable: [(key: String, value: JSONValue)], user: String, in db: Database) throws -> Outcome {
        switch try newRowValues(mutation, table: table, id: id, writable: writable) {
        case .refused(let outcome):
            return outcome
        case .row(let values, let stamp):
            let inserted = try SyncRowStore.insert(table, owner: try owner(of: values, table: table, in: db) ?? user, values: values, in: db)
            return try written(mutation, table: table, id: id, version: stamp, row: inserted, isNew: true, in: db)
        }
    }

    /// An update, or an insert over a tombstone (resurrection), judged by last-write-wins.
    private func update(_ mutation: Mutation, over row: StoredRow, table: SyncTable, writable: [(key: String, value: JSONValue)], in db: Database) throws -> Outcome {
        let resurrecting = row.isDeleted
        let client = mutation.clientVersion ?? SyncTimestamp.now()
        if let server = row.updatedAt {
            let verdict = ConflictRule.resolve(server: server, client: client, base: mutation.baseVersion, toleranceMilliseconds: toleranceMilliseconds)
            if verdict.winner == .server {
                let ahead = mutation.baseVersion.map { $0 > server } ?? false
                return .conflict(
                    ahead ? "client base version is ahead of server version" : "server version is newer",
                    for: mutation,
                    row: ScopeMembership.wireRow(row, table),
                    version: ScopeMembership.serverVersion(row)
                )
            }
        }
        guard !writable.isEmpty || resurrecting else {
            // The client won with nothing to write: applied, the row untouched.
            return .applied(mutation, row: ScopeMembership.wireRow(row, table), version: ScopeMembership.serverVersion(row) ?? client.text)
        }
        var values: [(column: String, value: DatabaseValue)] = []
        for (name, value) in writable {
            guard let column = table.syncedColumn(name) else { continue }
            do {
                values.append((name, try Self.storable(value, for: column)))
            } catch {
                return .databaseError(error.message, for: mutation)
            }
        }
        values.append((table.updatedAtColumn, client.text.databaseValue))
        if resurrecting { values.append((table.deletedAtColumn, .null)) }
        try SyncRowStore.update(table, id: row.id, values: values, in: db)
        return try written(mutation, table: table, id: row.id, version: client, in: db)
    }

    /// Captures the write's scope moves and answers with the row read back (or, for an insert,
    /// as it was written: reading it back was a fifth of a push). `isNew`: a row inserted where
    /// none had its key.
    private func written(
        _ mutation: Mutation,
        table: SyncTable,
        id: String,
        version: SyncTimestamp,
        row written: StoredRow? = nil,
        isNew: Bool = false,
        in db: Database
    ) throws -> Outcome {
        let row = try written ?? SyncRowStore.find(table, id: id, in: db)
        let wire = row.map { ScopeMembership.wireRow($0, table) }
        try membership.capture(table, row: row, wire: wire, id: id, isNew: isNew, in: db)
        return .applied(mutation, row: wire, version: version.text)
    }

    /// The owner of a new row of `values`: its owner column's value, or its parent row's
    /// owner; nil for a table without owners, or a row that would have none. Also the
    /// `_synchro_owner` protocol 1 keeps per row (the caller when nil).
    private func owner(of values: [(column: String, value: DatabaseValue)], table: SyncTable, in db: Database) throws -> String? {
        try ownerOnly.owner(
            in: table,
            value: { name in values.first(where: { $0.column == name }).flatMap { String.fromDatabaseValue($0.value) } },
            in: db
        )
    }

    /// `policy_rejected` for a mutation of an `owner_only` table that writes a row which is not
    /// the caller's, or would make a row someone else's (``OwnerOnlyPolicy``); nil when the
    /// mutation may go on. Decided before anything is written, as the operator's hook decides.
    private func ownerOnlyRefusal(
        _ mutation: Mutation,
        existing: StoredRow?,
        table: SyncTable,
        writable: [(key: String, value: JSONValue)],
        user: String,
        in db: Database
    ) throws -> Outcome? {
        if let existing, try ownerOnly.owner(of: existing, in: table, db: db) != user {
            return .terminal("policy_rejected", OwnerOnlyPolicy.notYours(table), for: mutation)
        }
        // What the row's owner columns hold once the mutation is applied: the values sent over
        // the stored ones (an insert: over the columns' defaults).
        let moving = OwnerOnlyPolicy.ownershipColumns(of: table)
        let sent = writable.filter { moving.contains($0.key) }
        // A column sent as null is null; one not sent keeps the row's value.
        func after(_ fallback: @escaping (String) -> String?) -> (String) -> String? {
            { name in
                if let value = sent.last(where: { $0.key == name })?.value { return value.stringValue }
                return fallback(name)
            }
        }
        let owner: String?
        switch (mutation.operation, existing) {
        case (.delete, _), (.update, nil):
            return nil
        case (.insert, let row?), (.update, let row?), (.upsert, let row?):
            guard !sent.isEmpty else { return nil }
            owner = try ownerOnly.owner(in: table, value: after { row.data[$0]?.stringValue }, in: db)
        case (.insert, nil), (.upsert, nil):
            owner = try ownerOnly.owner(in: table, value: after { table.column($0)?.defaultValue?.stringValue }, in: db)
        }
        return owner == user ? nil : .terminal("policy_rejected", OwnerOnlyPolicy.notForYou(table), for: mutation)
    }

    /// What to store for a pushed value. A uuid column keeps the canonical lower-case form, as
    /// PostgreSQL's uuid type does (so a child's parent key written in upper case joins its
    /// parent's lower-case id once it comes back), and refuses what is not a UUID.
    private static func storable(_ value: JSONValue, for column: SyncColumn) throws(SyncValueCoding.Mismatch) -> DatabaseValue {
        guard column.databaseType == "uuid", case .string(let text) = value else {
            return try SyncValueCoding.storable(value, for: column)
        }
        guard UUIDText.isUUID(text) else {
            throw SyncValueCoding.Mismatch(message: "invalid input syntax for type uuid: \"\(text)\"")
        }
        return text.lowercased().databaseValue
    }
}
