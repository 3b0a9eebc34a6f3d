import GRDB
import GRDBSQLite

/// SQLite's "copy this value now" destructor, which its C header spells as a cast macro that
/// Swift does not import.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// SQLite's "this value outlives the statement's use of it" destructor (`SQLITE_STATIC`, a
/// null one).
private let staticText: sqlite3_destructor_type? = nil

extension Statement {
    /// Runs the statement with `values` bound to its parameters in order (``bind(_:)``).
    ///
    /// Execution itself is GRDB's `execute()`, so its transaction observers and
    /// `ValueObservation` see every change as usual.
    ///
    /// - Throws: what ``bind(_:)`` throws, or whatever executing the statement throws.
    package func execute(binding values: [DatabaseValue]) throws {
        try bind(values)
        try execute()
    }

    /// Binds `values` to the statement's parameters in order, each value straight into SQLite;
    /// GRDB's `execute()` and fetching methods then run with them when given no arguments.
    ///
    /// For statements run once per row of a sync page or push batch. GRDB's
    /// `StatementArguments` maps every value through generic code its module does not
    /// specialize for ours: building them cost more than running the statement (a third of
    /// applying a pulled row).
    ///
    /// - Throws: `DatabaseError` (`SQLITE_MISUSE`) when `values` do not match the statement's
    ///   parameter count.
    package func bind(_ values: [DatabaseValue]) throws {
        try bind(values) { text, index in
            // `withCString` reads a native string in place; passing the `String` itself
            // would copy it into a new array first.
            text.withCString { sqlite3_bind_text(sqliteStatement, index, $0, -1, transient) }
        }
    }

    /// Runs the statement with `values` bound in order, their text read in place by SQLite
    /// rather than copied: for statements of hundreds of values (``MultiRowStatement``), where
    /// SQLite's copy of each text (an allocation, a copy, a release) and GRDB's clearing of
    /// them cost a fifth of the statement.
    ///
    /// The texts are laid end to end in one buffer that outlives the run; the bindings are
    /// cleared before it goes.
    ///
    /// - Throws: what ``bind(_:)`` throws, or whatever executing the statement throws.
    package func execute(bindingInPlace values: ArraySlice<DatabaseValue>) throws {
        var texts: [UInt8] = []
        var length = 0
        for value in values {
            if case .string(let text) = value.storage { length += text.utf8.count + 1 }
        }
        texts.reserveCapacity(length)
        for value in values {
            if case .string(let text) = value.storage {
                texts.append(contentsOf: text.utf8)
                // Each text ends in a zero byte: an empty one still has an address.
                texts.append(0)
            }
        }
        try texts.withUnsafeBufferPointer { buffer in
            defer { sqlite3_clear_bindings(sqliteStatement) }
            var offset = 0
            try bind(values) { text, index in
                let count = text.utf8.count
                defer { offset += count + 1 }
                guard let start = buffer.baseAddress else { return SQLITE_MISUSE }
                return start.advanced(by: offset).withMemoryRebound(to: CChar.self, capacity: count + 1) {
                    sqlite3_bind_text(sqliteStatement, index, $0, CInt(count), staticText)
                }
            }
            try execute()
        }
    }

    /// ``bind(_:)``, with `bindText` binding each text value.
    private func bind(_ values: some Collection<DatabaseValue>, text bindText: (String, CInt) -> CInt) throws {
        let statement = sqliteStatement
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard values.count == expected else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(values.count), expected \(expected)", sql: sql)
        }
        // A failed last run leaves its error in the statement until a reset, and GRDB's
        // `setUncheckedArguments` resets without expecting one: clear it here first. That
        // error was thrown when it happened.
        sqlite3_reset(statement)
        // Marks the statement's arguments as set, so `execute()` below only resets and steps,
        // keeping the bindings made here.
        setUncheckedArguments(StatementArguments())
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            let code: CInt
            switch value.storage {
            case .null: code = sqlite3_bind_null(statement, index)
            case .int64(let integer): code = sqlite3_bind_int64(statement, index, integer)
            case .double(let double): code = sqlite3_bind_double(statement, index, double)
            case .string(let text): code = bindText(text, index)
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(statement, index, bytes.baseAddress, CInt(bytes.count), transient)
                }
            }
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not bind argument \(index)", sql: sql)
            }
        }
    }
}
