import GRDBSQLite

/// The cells of one record, packed in one BLOB of `_crdt_rows` (one metadata row per record
/// instead of one per cell: a tracked insert or update writes one row, not one per column).
///
/// Layout, cell by cell in column position (the tracked columns in table order; a column
/// added later gets the next position): an unsigned LEB128 varint column version, 0 for a
/// column without metadata; then, when it is not 0, varints for the db version, the node
/// and the feed sequence. Positions past the end have no metadata. Values are never negative
/// (versions and node ids are checked to fit Int64 before they are stored).
///
/// The `cells` column holds a BLOB in that layout, NULL (no cells: a tombstone, or a record
/// known only by its life), or an INTEGER n: positions 0..<n at column version 1, stamped
/// like the record's life. That is what a local insert (or a merged one) leaves, and writing
/// the count instead of packing a blob keeps the hottest path, a tracked insert, short.
enum CellBlob {
    /// Calls `body` with each position and its cell, whichever form the column holds;
    /// `life` is the record's life (its db version, node and sequence stamp the implied cells).
    static func forEach(column: Int32, of statement: OpaquePointer?, life: Cell, _ body: (Int, Cell?) -> Void) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            forEachImplied(count: sqlite3_column_int64(statement, column), life: life, body)
        case SQLITE_BLOB:
            forEach(UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: Int(sqlite3_column_bytes(statement, column))), body)
        default:
            return
        }
    }

    /// The same, for a function argument.
    static func forEach(value: OpaquePointer?, life: Cell, _ body: (Int, Cell?) -> Void) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            forEachImplied(count: sqlite3_value_int64(value), life: life, body)
        case SQLITE_BLOB:
            forEach(UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: Int(sqlite3_value_bytes(value))), body)
        default:
            return
        }
    }

    private static func forEachImplied(count: Int64, life: Cell, _ body: (Int, Cell?) -> Void) {
        let cell = Cell(version: 1, dbVersion: life.dbVersion, node: life.node, sequence: life.sequence)
        for position in 0..<Int(max(0, min(count, Int64(Int32.max)))) { body(position, cell) }
    }

    /// The implied form (a count) when `cells` are exactly what it stands for, nil otherwise.
    static func impliedCount(_ cells: [Cell?], life: Cell) -> Int64? {
        let implied = Cell(version: 1, dbVersion: life.dbVersion, node: life.node, sequence: life.sequence)
        let used = (cells.lastIndex { $0 != nil } ?? -1) + 1
        guard cells[..<used].allSatisfy({ $0 == implied }) else { return nil }
        return Int64(used)
    }

    /// The most bytes one cell takes (four 10-byte varints).
    static let maxCellBytes = 40

    /// Calls `body` with each position and its cell (nil when it has none), in order.
    static func forEach(_ bytes: UnsafeRawBufferPointer, _ body: (Int, Cell?) -> Void) {
        var reader = Reader(bytes: bytes)
        var position = 0
        while !reader.isAtEnd {
            guard let cell = reader.cell() else { return }
            body(position, cell.version == 0 ? nil : cell)
            position += 1
        }
    }

    /// The cells as an array indexed by position (nil: no metadata), at least `count` long.
    static func decode(_ bytes: UnsafeRawBufferPointer, count: Int) -> [Cell?] {
        var cells = [Cell?](repeating: nil, count: count)
        forEach(bytes) { position, cell in
            if position < cells.count {
                cells[position] = cell
            } else {
                cells.append(cell)
            }
        }
        return cells
    }

    /// The largest db version among the cells of a BLOB (0 if none; the implied form has the
    /// life's).
    static func maxDBVersion(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var highest: Int64 = 0
        forEach(bytes) { _, cell in highest = max(highest, cell?.dbVersion ?? 0) }
        return highest
    }

    /// Packs `cells` (trailing cells without metadata are left out).
    static func encode(_ cells: [Cell?]) -> [UInt8] {
        let used = (cells.lastIndex { $0 != nil } ?? -1) + 1
        var writer = Writer(capacity: used * maxCellBytes)
        for cell in cells[..<used] { writer.append(cell) }
        return writer.bytes
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset >= bytes.count }

        /// The next cell (version 0 for a position without metadata); nil if the bytes end
        /// in the middle of one (a damaged blob reads as ending there).
        mutating func cell() -> Cell? {
            guard let version = varint() else { return nil }
            guard version != 0 else { return Cell(version: 0, dbVersion: 0, node: 0, sequence: 0) }
            guard let dbVersion = varint(), let node = varint(), let sequence = varint() else { return nil }
            return Cell(version: version, dbVersion: dbVersion, node: node, sequence: sequence)
        }

        mutating func varint() -> Int64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return Int64(bitPattern: value) }
                shift += 7
            }
            return nil
        }
    }

    /// Writes cells into a buffer the caller sized (`maxCellBytes` per cell).
    struct BufferWriter {
        let buffer: UnsafeMutableRawBufferPointer
        private(set) var count = 0

        init(buffer: UnsafeMutableRawBufferPointer) {
            self.buffer = buffer
        }

        mutating func append(_ cell: Cell?) {
            guard let cell, cell.version != 0 else {
                byte(0)
                return
            }
            varint(cell.version)
            varint(cell.dbVersion)
            varint(cell.node)
            varint(cell.sequence)
        }

        private mutating func varint(_ signed: Int64) {
            var value = UInt64(bitPattern: signed)
            while value >= 0x80 {
                byte(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            byte(UInt8(value))
        }

        private mutating func byte(_ value: UInt8) {
            guard count < buffer.count else { return }
            buffer[count] = value
            count += 1
        }
    }

    struct Writer {
        var bytes: [UInt8]

        init(capacity: Int) {
            bytes = []
            bytes.reserveCapacity(capacity)
        }

        mutating func append(_ cell: Cell?) {
            guard let cell, cell.version != 0 else {
                bytes.append(0)
                return
            }
            varint(cell.version)
            varint(cell.dbVersion)
            varint(cell.node)
            varint(cell.sequence)
        }

        mutating func varint(_ signed: Int64) {
            var value = UInt64(bitPattern: signed)
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
    }
}
