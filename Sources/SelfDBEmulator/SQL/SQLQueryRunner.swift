import EmulatorSupport
import Foundation
import GRDB

/// Runs an admin's query on the emulator's SQLite file, answering SelfDB's `SqlExecutionResult`.
///
/// SelfDB runs PostgreSQL; the emulator runs SQLite. The two dialects share plain `SELECT`,
/// `INSERT`, `UPDATE` and `DELETE`, which is what the emulator runs, on the app's tables
/// (``SQLQueryGuard/checkEmulatorScope(_:)``). Values come back as SQLite stores them (a
/// boolean column reads 0 or 1, a JSON column reads as its text) and errors carry SQLite's
/// words. Rows changed this way reach neither realtime subscribers nor sync clients: on
/// SelfDB, database triggers would tell them.
enum SQLQueryRunner {
    struct Outcome {
        var json: JSONValue
        var rowCount: Int
        /// The seconds the statements took, as answered and as the history keeps them.
        var seconds: Double
    }

    static func run(_ query: String, readOnly: Bool, in db: Database) throws -> Outcome {
        // Checked on the text first: compiling alone can change the connection (pragmas).
        try SQLQueryGuard.checkEmulatorScope(query)
        var statements: [Statement] = []
        let cursor = try db.allStatements(sql: query)
        while let statement = try cursor.next() {
            statements.append(statement)
        }
        let started = Date()
        // A read answers the rows of its first statement that has any (psycopg's first result).
        if readOnly, let index = statements.firstIndex(where: { $0.columnCount > 0 }) {
            for statement in statements[..<index] { try statement.execute() }
            let rows = try Row.fetchAll(statements[index])
            for statement in statements[(index + 1)...] { try statement.execute() }
            let columns = statements[index].columnNames
            let data = rows.map { row in
                JSONValue.object(JSONObject(zip(columns, row.databaseValues).map { ($0, json($1)) }))
            }
            let seconds = Date().timeIntervalSince(started)
            return Outcome(
                json: result(readOnly: true, seconds: seconds, rowCount: rows.count, columns: columns, data: data),
                rowCount: rows.count,
                seconds: seconds
            )
        }
        // psycopg reports the first statement's count.
        var changed = 0
        for (index, statement) in statements.enumerated() {
            try statement.execute()
            if index == 0 { changed = db.changesCount }
        }
        let seconds = Date().timeIntervalSince(started)
        return Outcome(json: result(readOnly: false, seconds: seconds, rowCount: changed, columns: nil, data: nil), rowCount: changed, seconds: seconds)
    }

    private static func result(readOnly: Bool, seconds: Double, rowCount: Int, columns: [String]?, data: [JSONValue]?) -> JSONValue {
        let message =
            readOnly ? "Query returned \(rowCount) row(s)" : "Query executed successfully. \(rowCount) row(s) affected."
        return .object(
            JSONObject([
                ("success", .bool(true)),
                ("is_read_only", .bool(readOnly)),
                ("execution_time", .double(seconds)),
                ("row_count", .int(Int64(rowCount))),
                ("columns", columns.map { .array($0.map(JSONValue.string)) } ?? .null),
                ("data", data.map(JSONValue.array) ?? .null),
                ("message", .string(message)),
                ("error", .null),
            ])
        )
    }

    private static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .int(integer)
        case .double(let double): .double(double)
        case .string(let text): .string(text)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }
}
