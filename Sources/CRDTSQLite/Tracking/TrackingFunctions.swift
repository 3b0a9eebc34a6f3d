import GRDBSQLite
import SelfDBStore

/// The SQL functions the tracking triggers call, and the hooks that end a transaction's clock.
///
/// Every connection that writes a tracked table needs them: the CRDT object's own, and every
/// connection `SelfDBStore.SQLite` opens once a `CRDTSQLite` was created in the process
/// (through `SQLite.setConnectionSetup`; one opened before that has none). Connections
/// without them (opened by another library, the sqlite3 shell) can read tracked tables but
/// not write them: the statement fails whole with "no such function: crdt_…", so nothing is
/// ever written untracked.
///
/// Why functions and hooks rather than SQL alone: the contract's clock ticks once per commit,
/// and SQL triggers cannot see where a transaction starts or ends. A function keeps the
/// transaction's version in per-connection memory and the commit and rollback hooks end it
/// (see ``TrackingContext``). The alternative, a control row updated per write, was what
/// ticked once per row and cost an UPDATE per tracked row.
///
/// - `crdt_tracking()`: 1, or 0 while a merge writes (the triggers' WHEN clause).
/// - `crdt_version()`, `crdt_node()`: the transaction's local version and this node's id.
/// - `crdt_seq(table, key)`: the feed sequence of one row write.
/// - `crdt_cells(cells, lifeVersion, lifeNode, lifeSequence, version, node, sequence, mask…)`:
///   `cells` (any ``CellBlob`` form; the record's life stamps the implied one) with the
///   positions set in the 64-bit masks (position 64·i + bit in the i-th mask) bumped to the
///   next column version and stamped with the write, as a BLOB.
/// - `crdt_cells_json(cells, lifeVersion, lifeNode, lifeSequence)`: `[[position, version,
///   dbVersion, node, sequence], …]`, for the `_crdt_columns` inspection view.
///
/// The commit and rollback hooks are the connection's only ones: setting others on the same
/// connection would leave the clock of the next transaction stale.
enum TrackingFunctions {
    /// Registers the functions on every connection SelfDBStore opens (once per process).
    static let registered: Void = SQLite.setConnectionSetup("CRDTSQLite.tracking") { handle in
        install(on: handle, context: TrackingContext(handle: handle))
    }

    /// Installs the functions and hooks on `handle`, sharing `context`; returns an SQLite
    /// result code. Installing again replaces them (and releases the earlier context).
    @discardableResult
    static func install(on handle: OpaquePointer, context: TrackingContext) -> Int32 {
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        sqlite3_commit_hook(
            handle,
            { pointer in
                pointer.map { Unmanaged<TrackingContext>.fromOpaque($0).takeUnretainedValue().transactionEnded() }
                return 0
            },
            pointer
        )
        sqlite3_rollback_hook(
            handle,
            { pointer in
                pointer.map { Unmanaged<TrackingContext>.fromOpaque($0).takeUnretainedValue().transactionEnded() }
            },
            pointer
        )
        // INNOCUOUS: triggers may call them even where the schema is not trusted
        // (SQLITE_DBCONFIG_TRUSTED_SCHEMA off).
        let stateful = SQLITE_UTF8 | SQLITE_INNOCUOUS
        let pure = stateful | SQLITE_DETERMINISTIC
        let functions: [(String, Int32, Int32, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            (
                "crdt_tracking", 0, stateful,
                { call, _, _ in
                    guard let context = TrackingFunctions.trackingContext(of: call) else { return }
                    sqlite3_result_int(call, context.merging ? 0 : 1)
                }
            ),
            (
                "crdt_version", 0, stateful,
                { call, _, _ in
                    guard let context = TrackingFunctions.trackingContext(of: call) else { return }
                    TrackingFunctions.result(call) { () throws(TrackingContext.Failure) in try context.version() }
                }
            ),
            (
                "crdt_node", 0, stateful,
                { call, _, _ in
                    guard let context = TrackingFunctions.trackingContext(of: call) else { return }
                    TrackingFunctions.result(call) { () throws(TrackingContext.Failure) in try context.node() }
                }
            ),
            (
                "crdt_seq", 2, stateful,
                { call, _, arguments in
                    guard let context = TrackingFunctions.trackingContext(of: call), let arguments else { return }
                    let table = sqlite3_value_int64(arguments[0])
                    let key = TrackingFunctions.keyHash(arguments[1])
                    TrackingFunctions.result(call) { () throws(TrackingContext.Failure) in try context.sequence(table: table, key: key) }
                }
            ),
            (
                "crdt_cells", -1, pure,
                { call, count, arguments in
                    guard let arguments, count >= 7 else {
                        sqlite3_result_error(call, "crdt_cells takes cells, the life's version, node and sequence, the write's, and masks", -1)
                        return
                    }
                    TrackingFunctions.cells(call, arguments, Int(count))
                }
            ),
            (
                "crdt_cells_json", 4, pure,
                { call, _, arguments in
                    guard let arguments else { return }
                    TrackingFunctions.cellsJSON(call, arguments)
                }
            ),
        ]
        for (name, arity, flags, function) in functions {
            // Each registration holds the context; SQLite releases it when the function is
            // replaced or the connection closes.
            let retained = Unmanaged.passRetained(context).toOpaque()
            let code = sqlite3_create_function_v2(handle, name, arity, flags, retained, function, nil, nil) { pointer in
                pointer.map { Unmanaged<TrackingContext>.fromOpaque($0).release() }
            }
            guard code == SQLITE_OK else { return code }
        }
        return SQLITE_OK
    }

    // MARK: - Implementations

    private static func trackingContext(of call: OpaquePointer?) -> TrackingContext? {
        guard let pointer = sqlite3_user_data(call) else {
            sqlite3_result_error(call, "crdt: function registered without its context", -1)
            return nil
        }
        return Unmanaged<TrackingContext>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static func result(_ call: OpaquePointer?, _ body: () throws(TrackingContext.Failure) -> Int64) {
        do {
            sqlite3_result_int64(call, try body())
        } catch {
            sqlite3_result_error(call, error.message, -1)
            sqlite3_result_error_code(call, error.code)
        }
    }

    /// Tells record keys apart cheaply (integer keys as they are, others by FNV-1a of their
    /// bytes). A collision only makes two records share a feed sequence, which is harmless:
    /// a sequence is a position in the feed, and what one holds always travels together.
    private static func keyHash(_ value: OpaquePointer?) -> UInt64 {
        if sqlite3_value_type(value) == SQLITE_INTEGER { return UInt64(bitPattern: sqlite3_value_int64(value)) }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let count = Int(sqlite3_value_bytes(value))
        if let bytes = sqlite3_value_blob(value) {
            for byte in UnsafeRawBufferPointer(start: bytes, count: count) {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            }
        }
        return hash
    }

    /// Runs once per tracked row write: reads and writes the packed cells in place, without
    /// heap allocations (a stack buffer sized for the worst case of the cells at hand).
    private static func cells(_ call: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>, _ count: Int) {
        let version = sqlite3_value_int64(arguments[4])
        let node = sqlite3_value_int64(arguments[5])
        let sequence = sqlite3_value_int64(arguments[6])
        let maskCount = count - 7
        func mask(_ index: Int) -> UInt64 { UInt64(bitPattern: sqlite3_value_int64(arguments[7 + index])) }
        var maskedPositions = 0
        for index in stride(from: maskCount - 1, through: 0, by: -1) where mask(index) != 0 {
            maskedPositions = index * 64 + 64 - mask(index).leadingZeroBitCount
            break
        }
        // The implied form: the first n positions stamped like the life.
        let isImplied = sqlite3_value_type(arguments[0]) == SQLITE_INTEGER
        let implied = isImplied ? Int(clamping: max(0, sqlite3_value_int64(arguments[0]))) : 0
        let life = Cell(version: 1, dbVersion: sqlite3_value_int64(arguments[1]), node: sqlite3_value_int64(arguments[2]), sequence: sqlite3_value_int64(arguments[3]))
        let existingBytes = isImplied ? 0 : Int(sqlite3_value_bytes(arguments[0]))
        let existing = UnsafeRawBufferPointer(start: isImplied ? nil : sqlite3_value_blob(arguments[0]), count: existingBytes)
        // Every stored cell takes at least one byte, so the blob has at most that many positions.
        let positions = max(maskedPositions, implied)
        let capacity = (positions + existingBytes) * CellBlob.maxCellBytes
        withUnsafeTemporaryAllocation(byteCount: max(capacity, 1), alignment: 1) { buffer in
            var reader = CellBlob.Reader(bytes: existing)
            var writer = CellBlob.BufferWriter(buffer: buffer)
            var position = 0
            while position < positions || !reader.isAtEnd {
                var cell: Cell? = position < implied ? life : (reader.isAtEnd ? nil : reader.cell())
                if cell?.version == 0 { cell = nil }
                if position < maskedPositions, mask(position / 64) & (1 << UInt64(position % 64)) != 0 {
                    let previous = cell?.version ?? 0
                    guard previous < Int64.max else {
                        sqlite3_result_error(call, TrackingContext.overflow.message, -1)
                        return
                    }
                    cell = Cell(version: previous + 1, dbVersion: version, node: node, sequence: sequence)
                }
                writer.append(cell)
                position += 1
            }
            sqlite3_result_blob(call, buffer.baseAddress, Int32(writer.count), SQLITE_TRANSIENT)
        }
    }

    private static func cellsJSON(_ call: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>) {
        let life = Cell(version: 1, dbVersion: sqlite3_value_int64(arguments[1]), node: sqlite3_value_int64(arguments[2]), sequence: sqlite3_value_int64(arguments[3]))
        var items: [String] = []
        CellBlob.forEach(value: arguments[0], life: life) { position, cell in
            guard let cell else { return }
            items.append("[\(position),\(cell.version),\(cell.dbVersion),\(cell.node),\(cell.sequence)]")
        }
        sqlite3_result_text(call, "[" + items.joined(separator: ",") + "]", -1, SQLITE_TRANSIENT)
    }
}
