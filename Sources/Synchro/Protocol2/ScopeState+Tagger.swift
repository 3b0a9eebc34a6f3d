import GRDB
import GRDBBinding
import SelfDBRuntime

extension ScopeState {
    /// Records which scopes hold the rows of a page, with the checksums the server sent, many
    /// rows to a statement (``MultiRowStatement``), and keeps each scope's sum of them
    /// (``localChecksum(_:in:)``): call ``flush()`` before anything else reads or writes the
    /// provenance, and at the end.
    ///
    /// An entry tagged adds its checksum to its scope's sum; an entry it replaces takes the old
    /// one out. Which entries an upsert replaced, and with what, only SQLite knows: the
    /// statement's conflict clause hands each one's old checksum to ``ReplacedChecksums`` on its
    /// way (a function call per replaced entry; none for a new one, and no read beforehand).
    struct Tagger {
        private var writer: MultiRowStatement
        private let db: Database
        private let replaced: ReplacedChecksums
        /// Per scope, the XOR of the checksums tagged since the last flush.
        private var added: [String: Int32] = [:]

        init(in db: Database, replaced: ReplacedChecksums) {
            self.db = db
            self.replaced = replaced
            // What a failed page left behind is not this page's.
            _ = replaced.take()
            writer = MultiRowStatement(columnCount: 5, in: db) { rows in
                """
                INSERT INTO _synchro_scope_rows (scope_id, table_name, record_id, checksum, generation) VALUES \(rows)
                ON CONFLICT (scope_id, table_name, record_id) DO UPDATE SET checksum = excluded.checksum, generation = excluded.generation
                WHERE \(ReplacedChecksums.functionName)(scope_id, checksum, checksum IS NOT excluded.checksum OR generation IS NOT excluded.generation)
                """
            }
        }

        /// Records that `scope` holds the row (at the latest at ``flush()``).
        mutating func tag(_ scope: String, table: String, id: String, checksum: Int32, generation: Int64) throws {
            try writer.appendRow { values in
                values.append(scope.databaseValue)
                values.append(table.databaseValue)
                values.append(id.databaseValue)
                values.append(Int64(checksum).databaseValue)
                values.append(generation.databaseValue)
            }
            added[scope, default: 0] ^= checksum
        }

        mutating func flush() throws {
            try writer.flush()
            var deltas = added
            for (scope, old) in replaced.take() { deltas[scope, default: 0] ^= old }
            for (scope, delta) in deltas { try changeLocalChecksum(of: scope, by: delta, in: db) }
            added = [:]
        }
    }
}

/// The old checksums of the provenance entries a ``ScopeState/Tagger`` statement replaced, per
/// scope, XOR-ed: the SQL function ``functionName`` on the connection that tags (the writer),
/// called by the statement's conflict clause with the entry's scope, its old checksum and
/// whether the entry is to be updated, which it returns.
final class ReplacedChecksums: Sendable {
    static let functionName = "synchro_replaced_checksum"

    private let sums = Locked<[String: Int32]>([:])

    init() {}

    /// The function, to add to the writer (`Database.add(function:)`) once, when it opens.
    var function: DatabaseFunction {
        DatabaseFunction(Self.functionName, argumentCount: 3, pure: false) { [sums] values in
            if let scope = String.fromDatabaseValue(values[0]), let old = Int64.fromDatabaseValue(values[1]) {
                sums.withLock { $0[scope, default: 0] ^= Int32(truncatingIfNeeded: old) }
            }
            return values[2]
        }
    }

    /// What was noted since the last call; starts over.
    func take() -> [String: Int32] {
        sums.withLock { sums in
            defer { sums = [:] }
            return sums
        }
    }
}
