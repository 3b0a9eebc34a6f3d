import EmulatorSupport
import Foundation
import SynchroEmulator

extension SelfDBEmulator {
    /// Writes a row of a synced table the way an operator's write reaches the real server's
    /// database (captured from its WAL, not pushed): no push policy, no conflict rule, no
    /// ownership. It is how a test or a demo fills a read-only table (`shared:` without
    /// `push: enabled`) or changes a row a scope query reads. Protocol 2 only.
    ///
    /// `values` must hold the primary key. A new row takes the spec's defaults for the columns
    /// left out; an existing one keeps them. The `updatedAt` column is now (at least a
    /// millisecond after the row's previous value) unless given. The row's scopes are computed
    /// again and every move is logged, so clients pull it.
    public func writeSyncedRow(table: String, values: [String: SyncedRow.Value]) throws {
        guard let server = services.synchro else { throw SyncHookError.syncDisabled }
        guard let synced = server.schema.table(table) else { throw SyncHookError.unknownTable(table) }
        guard let protocolTwo = server.protocolTwo else { throw SyncHookError.needsProtocolTwo }
        var object = JSONObject()
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            object[name] = try Self.json(value, column: name)
        }
        do {
            try protocolTwo.operatorWrite(synced, values: object)
        } catch OperatorWriteError.invalidRow(let reason) {
            throw SyncHookError.invalidRow(reason)
        }
    }

    private static func json(_ value: SyncedRow.Value, column: String) throws(SyncHookError) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .json(let text):
            guard let parsed = try? JSONParser.parse(text) else { throw .invalidRow("column '\(column)' is not JSON: \(text.prefix(40))") }
            return parsed
        }
    }
}
