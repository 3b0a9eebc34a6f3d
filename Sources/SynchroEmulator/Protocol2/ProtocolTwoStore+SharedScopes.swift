import EmulatorSupport
import GRDB

extension ProtocolTwoStore {
    /// Registers the spec's shared scopes as `synchro_register_shared_scope` and
    /// `synchro_unregister_shared_scope` would: a scope new since the last start is appended
    /// to every active client's list that lacks it, one gone is removed from every active
    /// client's list that has it, and each change raises that client's `scope_set_version`.
    /// The client's next connect sorts its list again, which can raise the version once more,
    /// as on the real server (§9.8).
    static func registerSharedScopes(_ scopes: [String], in db: Database) throws {
        let registered = Set(try String.fetchAll(db, sql: "SELECT scope_id FROM _synchro2_shared_scopes"))
        let added = scopes.filter { !registered.contains($0) }
        let removed = registered.subtracting(scopes).sorted()
        guard !added.isEmpty || !removed.isEmpty else { return }
        for scope in added {
            try db.execute(sql: "INSERT INTO _synchro2_shared_scopes (scope_id) VALUES (?)", arguments: [scope])
        }
        for scope in removed {
            try db.execute(sql: "DELETE FROM _synchro2_shared_scopes WHERE scope_id = ?", arguments: [scope])
        }
        let clients = try Row.fetchAll(db, sql: "SELECT user_id, client_id, scopes, scope_set_version FROM _synchro2_clients WHERE active = 1")
        for client in clients {
            var list = (try? JSONParser.parse(client["scopes"] as String))?.arrayValue?.compactMap(\.stringValue) ?? []
            var version: Int64 = client["scope_set_version"]
            for scope in added where !list.contains(scope) {
                list.append(scope)
                version += 1
            }
            for scope in removed where list.contains(scope) {
                list.removeAll { $0 == scope }
                version += 1
            }
            guard version != client["scope_set_version"] as Int64 else { continue }
            try db.execute(
                sql: "UPDATE _synchro2_clients SET scopes = ?, scope_set_version = ? WHERE user_id = ? AND client_id = ?",
                arguments: [JSONWriter.string(.array(list.map(JSONValue.string))), version, client["user_id"] as String, client["client_id"] as String]
            )
        }
    }
}
