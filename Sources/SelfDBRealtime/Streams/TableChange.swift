import SelfDBRuntime

/// A change to a row of a generated table model, from ``RealtimeClient/changes(_:)``.
public enum TableChange<Row: TableModel>: Sendable, Hashable {
    /// The inserted row.
    case insert(Row)
    /// The row after an update, and before it when the server sent it.
    case update(Row, old: Row?)
    /// The deleted row.
    case delete(Row)

    /// The row the change is about (the new one for inserts and updates).
    public var row: Row {
        switch self {
        case .insert(let row), .update(let row, _), .delete(let row): row
        }
    }

    /// Decodes a payload; throws ``RealtimeError/undecodableRow(table:reason:)``.
    init(_ payload: RealtimePayload) throws(RealtimeError) {
        do {
            switch payload.event {
            case .insert:
                self = .insert(try Self.require(payload.decodeNew(as: Row.self), "no new row", payload))
            case .update:
                self = .update(try Self.require(payload.decodeNew(as: Row.self), "no new row", payload), old: try payload.decodeOld(as: Row.self))
            case .delete, .all:
                self = .delete(try Self.require(payload.decodeOld(as: Row.self), "no old row", payload))
            }
        } catch let error as RealtimeError {
            throw error
        } catch {
            throw .undecodableRow(table: payload.table, reason: String(describing: error))
        }
    }

    private static func require(_ row: Row?, _ problem: String, _ payload: RealtimePayload) throws(RealtimeError) -> Row {
        guard let row else { throw .undecodableRow(table: payload.table, reason: "\(payload.event.rawValue) with \(problem)") }
        return row
    }
}
