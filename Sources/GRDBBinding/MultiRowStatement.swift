import GRDB

/// Rows written many to a statement: `INSERT … VALUES (…), (…), … ON CONFLICT …`, for the
/// thousands of rows of a sync page.
///
/// Each run of a statement costs SQLite a statement transaction, cursors opened and closed and
/// a halt (a fifth of SQLite's work for a one-row upsert into a table with triggers, measured
/// with callgrind), and GRDB a reset and its observer bookkeeping. Rows given to ``append(_:)`` wait here and go ``maximumRows`` to a
/// statement; ``flush()`` writes the rest in statements of 32, 16, … 1 rows, so a table needs
/// a handful of compiled statements whatever the counts.
///
/// SQLite runs the rows of a `VALUES` list one after the other, each with its own conflict
/// handling, so a statement of several rows writes what as many one-row statements in the
/// same order would, a key given twice included.
///
/// Nothing is written until the batch is full or flushed: flush before anything reads or
/// writes what the waiting rows touch, and before the transaction ends.
package struct MultiRowStatement {
    /// The most rows one statement takes: the largest power of two up to 64 whose rows have at
    /// most 999 parameters (SQLite's limit before 3.32); 1 when a row alone has more.
    package let maximumRows: Int
    private let columnCount: Int
    private let sql: (_ rows: String) -> String
    private let db: Database
    private var values: [DatabaseValue] = []
    /// By row count; each compiled at its first use.
    private var statements: [Int: Statement] = [:]

    /// A writer for `columnCount` values a row, in the transaction of `db`. `sql` makes the
    /// statement from its `VALUES` rows (`(?, ?), (?, ?)`).
    package init(columnCount: Int, in db: Database, sql: @escaping (_ rows: String) -> String) {
        precondition(columnCount > 0, "a row has at least one value")
        var rows = 64
        while rows > 1 && rows * columnCount > 999 { rows /= 2 }
        maximumRows = rows
        self.columnCount = columnCount
        self.sql = sql
        self.db = db
        values.reserveCapacity(rows * columnCount)
    }

    /// The number of rows waiting.
    package var pendingRows: Int { values.count / columnCount }

    /// Adds a row; writes the batch when it is full.
    ///
    /// - Throws: `DatabaseError` (`SQLITE_MISUSE`) when `row` does not have the statement's
    ///   number of values, or what writing throws.
    package mutating func append(_ row: some Collection<DatabaseValue>) throws {
        try appendRow { $0.append(contentsOf: row) }
    }

    /// Adds the row that `write` appends to the values waiting, without an array of its own;
    /// writes the batch when it is full.
    ///
    /// - Throws: `DatabaseError` (`SQLITE_MISUSE`) when `write` does not append the statement's
    ///   number of values (the row is not added), what `write` throws, or what writing throws.
    package mutating func appendRow(_ write: (inout [DatabaseValue]) throws -> Void) throws {
        let start = values.count
        do {
            try write(&values)
        } catch {
            values.removeSubrange(start...)
            throw error
        }
        let count = values.count - start
        guard count == columnCount else {
            values.removeSubrange(start...)
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a row of \(count) values for a statement of \(columnCount)")
        }
        if values.count == maximumRows * columnCount { try flush() }
    }

    /// Writes every waiting row, in the order given. After a throw the rows are dropped: the
    /// transaction they were for is to be rolled back.
    package mutating func flush() throws {
        defer { values.removeAll(keepingCapacity: true) }
        var start = 0
        var rows = maximumRows
        while start < values.count {
            let remaining = (values.count - start) / columnCount
            while rows > remaining { rows /= 2 }
            let end = start + rows * columnCount
            try statement(rows: rows).execute(bindingInPlace: values[start..<end])
            start = end
        }
    }

    private mutating func statement(rows: Int) throws -> Statement {
        if let statement = statements[rows] { return statement }
        let row = "(" + KeyList.places(columnCount) + ")"
        let statement = try db.cachedStatement(sql: sql(Array(repeating: row, count: rows).joined(separator: ", ")))
        statements[rows] = statement
        return statement
    }
}
