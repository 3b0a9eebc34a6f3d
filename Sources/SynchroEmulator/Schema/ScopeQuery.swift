import GRDB
import SelfDBSpec

/// A table's scope query (`sync: { sql: … }`): the emulator's counterpart of the bucket SQL of
/// Synchro's `synchro_register_table` (`shared/contracts/synchro-v2.md` §4.3).
///
/// It is SQLite, run on the sync server's own database, where every synced table is visible
/// under its spec name with all of its spec columns (``ScopeQueryTables``). `$1` is the
/// record's key as the server stores it (lower-cased). Each result row's first and only column
/// is one scope id; NULL and empty values are skipped and duplicates collapse. No rows: the
/// record is in no scope. Porting from PostgreSQL: `$1::uuid` → `$1`,
/// `SELECT ARRAY['user:' || user_id] …` → `SELECT 'user:' || user_id …`,
/// `SELECT array_agg(x) …` → `SELECT x …`.
struct ScopeQuery: Sendable {
    let sql: String
    /// Where the spec wrote it, for startup errors.
    let location: SourceLocation

    /// The key the query is test-run with at startup, as the real server's registration does.
    static let probeKey = "00000000-0000-0000-0000-000000000000"

    /// The scope ids of the record whose key is `id`, sorted, without duplicates.
    func scopes(forRecord id: String, in db: Database) throws -> [String] {
        let statement = try db.cachedStatement(sql: sql)
        var scopes: Set<String> = []
        for value in try DatabaseValue.fetchAll(statement, arguments: Self.arguments(id)) {
            switch value.storage {
            case .string(let text) where !text.isEmpty: scopes.insert(text)
            case .int64(let number): scopes.insert(String(number))
            default: continue
            }
        }
        return scopes.sorted()
    }

    /// Prepares the query and test-runs it with ``probeKey``; what is wrong with it, if
    /// anything, for a startup error.
    func problem(in db: Database, table: String) -> String? {
        let start = "the scope query of '\(table)'"
        let statement: Statement
        do {
            statement = try db.makeStatement(sql: sql)
        } catch {
            return "\(start) does not compile in the emulator's SQLite: \(Self.message(error))\(portingHint)"
        }
        guard statement.isReadonly else { return "\(start) changes the database; it must only read (a SELECT)" }
        guard statement.columnCount == 1 else {
            return "\(start) returns \(statement.columnCount) columns; it must return one, a scope id per row\(portingHint)"
        }
        do {
            try statement.validateArguments(Self.arguments(Self.probeKey))
        } catch {
            return "\(start) has a parameter other than $1; $1 is the record's key and the only one\(portingHint)"
        }
        do {
            _ = try DatabaseValue.fetchAll(statement, arguments: Self.arguments(Self.probeKey))
        } catch {
            return "\(start) fails when run with $1 = '\(Self.probeKey)': \(Self.message(error))\(portingHint)"
        }
        return nil
    }

    /// `$1` bound by name, so that it may appear any number of times.
    private static func arguments(_ id: String) -> StatementArguments {
        ["1": id]
    }

    private static func message(_ error: any Error) -> String {
        (error as? DatabaseError)?.message ?? String(describing: error)
    }

    /// What a PostgreSQL registration needs changed, when the query shows it.
    private var portingHint: String {
        let lowered = sql.lowercased()
        var hints: [String] = []
        if lowered.contains("::") { hints.append("PostgreSQL casts go: write $1, not $1::uuid") }
        if lowered.contains("array[") || lowered.contains("array_agg") {
            hints.append("return one scope id per row: ARRAY['user:' || user_id] becomes 'user:' || user_id, array_agg(x) becomes x")
        }
        return hints.isEmpty ? "" : " (" + hints.joined(separator: "; ") + ")"
    }
}
