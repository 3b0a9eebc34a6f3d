import EmulatorSupport
import GRDB

/// A row as a pull or rebuild page serves it, serialised once.
///
/// Its canonical form (``RowChecksum/canonicalBytes(_:)``) gives its checksum and, for a row of
/// plain values, is also what the page carries. A row read for a page is written from SQLite's
/// values straight into that form (``ServedRowReader``): going through a ``StoredRow`` and the
/// served row as a `JSONValue` tree, a pull page took the server two fifths more time.
struct ServedRow: Equatable {
    /// The stored key, as ``StoredRow/id``.
    let id: String
    /// ``ScopeMembership/wireRow(_:_:)`` in canonical form.
    let canonical: [UInt8]
    /// The compact form, when it differs from the canonical one (a number with a fraction, a
    /// nested object or array); nil when the canonical form is also the compact one.
    let compact: [UInt8]?
    let checksum: Int32
    let isDeleted: Bool
    /// ``ScopeMembership/serverVersion(_:)``.
    let serverVersion: String?

    /// What a page carries as the row.
    var wireBytes: [UInt8] { compact ?? canonical }

    /// The general path: through the served row as a `JSONValue`.
    init(_ row: StoredRow, table: SyncTable) {
        let wire = ScopeMembership.wireRow(row, table)
        let canonical = RowChecksum.canonicalBytes(wire)
        self.init(
            id: row.id,
            canonical: canonical,
            compact: Self.isPlain(wire) ? nil : JSONWriter.bytes(wire),
            checksum: RowChecksum.of(canonicalBytes: canonical),
            isDeleted: row.isDeleted,
            serverVersion: ScopeMembership.serverVersion(row)
        )
    }

    init(id: String, canonical: [UInt8], compact: [UInt8]?, checksum: Int32, isDeleted: Bool, serverVersion: String?) {
        (self.id, self.canonical, self.compact, self.checksum) = (id, canonical, compact, checksum)
        (self.isDeleted, self.serverVersion) = (isDeleted, serverVersion)
    }

    /// Whether the canonical form of `row` is also its compact form: members of plain values,
    /// already in byte order (as ``ScopeMembership/wireRow(_:_:)`` makes them).
    private static func isPlain(_ row: JSONValue) -> Bool {
        guard case .object(let object) = row else { return false }
        return object.members.allSatisfy { $0.value.isPlain }
    }
}

extension JSONValue {
    /// A value whose canonical and compact forms are the same text.
    fileprivate var isPlain: Bool {
        switch self {
        case .null, .bool, .int, .string: true
        case .double, .array, .object: false
        }
    }
}

/// Reads ``ServedRow``s from rows of ``SyncRowStore``'s selection (the owner, then every column
/// in spec order), for one table: the member names and positions are worked out once a page.
struct ServedRowReader {
    private struct Member {
        /// `"name":`, as the row carries it.
        var prefix: [UInt8]
        /// The value's index in a selected row.
        var position: Int
        var column: SyncColumn
        var isTimestamp: Bool
    }

    let table: SyncTable
    /// Nil when a registered timestamp column is not synced: the served row then lists it
    /// anyway, out of byte order, and the general path serves it.
    private let members: [Member]?
    private let key: (position: Int, column: SyncColumn)?
    private let updatedAtPosition: Int?
    private let deletedAtPosition: Int?

    init(_ table: SyncTable) {
        self.table = table
        func position(_ name: String) -> Int? { table.columns.firstIndex { $0.name == name }.map { $0 + 1 } }
        key = position(table.primaryKey).flatMap { position in table.column(table.primaryKey).map { (position, $0) } }
        updatedAtPosition = position(table.updatedAtColumn)
        deletedAtPosition = position(table.deletedAtColumn)
        let wireNames = Set(table.wireColumns.map(\.name))
        if wireNames.contains(table.updatedAtColumn), wireNames.contains(table.deletedAtColumn) {
            members = table.wireColumns.compactMap { column in
                guard let position = position(column.name) else { return nil }
                var prefix: [UInt8] = []
                JSONWriter.writeString(column.name, into: &prefix)
                prefix.append(UInt8(ascii: ":"))
                let isTimestamp = column.name == table.updatedAtColumn || column.name == table.deletedAtColumn
                return Member(prefix: prefix, position: position, column: column, isTimestamp: isTimestamp)
            }
        } else {
            members = nil
        }
    }

    /// The served form of `row`.
    func read(_ row: Row) -> ServedRow {
        directly(row) ?? ServedRow(SyncRowStore.storedRow(row, table), table: table)
    }

    /// `row` written member by member into its canonical form; nil for a row with a value
    /// whose canonical and compact forms differ, or of a table whose rows list a timestamp
    /// that is not synced.
    func directly(_ row: Row) -> ServedRow? {
        guard let members else { return nil }
        var canonical: [UInt8] = []
        canonical.reserveCapacity(256)
        canonical.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { canonical.append(UInt8(ascii: ",")) }
            canonical.append(contentsOf: member.prefix)
            let value: JSONValue
            if member.isTimestamp {
                value = Self.timestamp(row[member.position]).map(JSONValue.string) ?? .null
            } else {
                value = SyncValueCoding.json(row[member.position], for: member.column)
                guard value.isPlain else { return nil }
            }
            JSONWriter.write(value, into: &canonical)
        }
        canonical.append(UInt8(ascii: "}"))
        let deletedAt = deletedAtPosition.flatMap { Self.timestamp(row[$0]) }
        return ServedRow(
            id: key.map { SyncValueCoding.json(row[$0.position], for: $0.column) }?.stringValue ?? "",
            canonical: canonical,
            compact: nil,
            checksum: RowChecksum.of(canonicalBytes: canonical),
            isDeleted: deletedAt != nil,
            serverVersion: deletedAt ?? updatedAtPosition.flatMap { Self.timestamp(row[$0]) }
        )
    }

    /// A registered timestamp column's value as served: the stored text when it is already in
    /// its served form, else parsed and printed; nil when it is no timestamp (as
    /// ``StoredRow``'s timestamps are read).
    private static func timestamp(_ value: DatabaseValue) -> String? {
        guard case .string(let text) = value.storage else { return nil }
        return SyncTimestamp.isCanonical(text) ? text : SyncTimestamp(parsing: text)?.text
    }
}
