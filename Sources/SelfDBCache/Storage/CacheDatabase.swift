import Foundation
import SelfDBStore

/// The cache file through `SelfDBStore`: one connection behind a lock, with its prepared
/// statements kept. The cache is `Sendable` and called from many tasks; a connection is not,
/// so every access goes through `read` or `write` (a transaction).
final class CacheDatabase: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: SQLite
    private var statements: [String: Statement] = [:]

    init(path: String) throws {
        connection = try SQLite(path, busyTimeout: .seconds(5))
        // WAL with synchronous=NORMAL: a commit is durable against the app being killed (the
        // pending-mutation queue's promise) without an fsync per write; a power cut may lose
        // the last commits but never corrupts the file. Reading the schema fails on a file
        // that is not a database: say so at open.
        try connection.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; SELECT count(*) FROM sqlite_master;")
    }

    /// Runs `body` with the connection (no transaction: one statement reads consistently).
    func read<T>(_ body: (Access) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(Access(database: self))
    }

    /// Runs `body` in a transaction.
    func write<T>(_ body: (Access) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try connection.transaction { try body(Access(database: self)) }
    }

    fileprivate func statement(_ sql: String) throws -> Statement {
        if let cached = statements[sql] { return cached }
        let prepared = try connection.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    /// The calls the storage makes, valid inside `read`/`write` only.
    struct Access {
        fileprivate let database: CacheDatabase

        typealias Arguments = [(any SQLiteBindable)?]

        /// Several statements, no arguments (the schema).
        func executeScript(_ sql: String) throws {
            try database.connection.executeScript(sql)
        }

        func execute(sql: String, arguments: Arguments = []) throws {
            try cachedStatement(sql: sql).execute(arguments: arguments)
        }

        func fetchAll(sql: String, arguments: Arguments = []) throws -> [Row] {
            try cachedStatement(sql: sql).run(arguments).all()
        }

        func fetchOne(sql: String, arguments: Arguments = []) throws -> Row? {
            try cachedStatement(sql: sql).run(arguments).nextRow()
        }

        /// The first column of the first row, converted; nil when there is no row or it is NULL.
        func value<T: SQLiteConvertible>(_ type: T.Type, sql: String, arguments: Arguments = []) throws -> T? {
            try fetchOne(sql: sql, arguments: arguments)?[0]
        }

        /// The first column of every row, converted (NULLs skipped).
        func values<T: SQLiteConvertible>(_ type: T.Type, sql: String, arguments: Arguments = []) throws -> [T] {
            try fetchAll(sql: sql, arguments: arguments).compactMap { $0[0] }
        }

        func cachedStatement(sql: String) throws -> CachedStatement {
            CachedStatement(statement: try database.statement(sql))
        }

        var lastInsertedRowID: Int64 { database.connection.lastInsertRowID }
    }

    /// A kept statement, run with an argument array.
    struct CachedStatement {
        let statement: Statement

        func execute(arguments: Access.Arguments) throws {
            try run(arguments)
        }

        @discardableResult
        func run(_ arguments: Access.Arguments) throws -> Statement {
            try statement.execute(arguments: arguments.map { $0?.sqliteValue ?? .null })
        }
    }
}

extension Row {
    /// A column the cache's schema declares NOT NULL: a NULL or a value of the wrong type
    /// there means the file was damaged, which is reported rather than trapped on.
    func required<T: SQLiteConvertible>(_ name: String) throws -> T {
        guard let value: T = self[name] else { throw CacheError.storage("the cache file is damaged: \(name) is missing or invalid") }
        return value
    }

    /// The same, by position.
    func required<T: SQLiteConvertible>(_ index: Int) throws -> T {
        guard let value: T = self[index] else { throw CacheError.storage("the cache file is damaged: column \(index) is missing or invalid") }
        return value
    }
}
