import Foundation
import SelfDBStore

/// `CacheStorage` on one SQLite file through `SelfDBStore`. Every statement binds its values;
/// table names are fixed, so no identifier is ever built from input.
final class SQLiteCacheStorage: CacheStorage {
    private let queue: CacheDatabase

    /// Opens (or creates) the cache file at `path` and brings its schema up to date.
    init(path: String) throws {
        do {
            queue = try CacheDatabase(path: path)
            try queue.write { db in try CacheSchema.migrate(db) }
        } catch {
            throw CacheError.storage("cannot open the cache at \(path): \(error)")
        }
    }

    func read<T>(_ body: (CacheDatabase.Access) throws -> T) throws -> T {
        do { return try queue.read(body) } catch let error as CacheError { throw error } catch {
            throw CacheError.storage("\(error)")
        }
    }

    func write<T>(_ body: (CacheDatabase.Access) throws -> T) throws -> T {
        do { return try queue.write(body) } catch let error as CacheError { throw error } catch {
            throw CacheError.storage("\(error)")
        }
    }

    private static let viewItemsSQL = """
        SELECT i.item_id, i.json, i.state FROM cache_view_items v
        JOIN cache_items i ON i.type_name = v.type_name AND i.item_id = v.item_id
        WHERE v.type_name = ? AND v.view_id = ? ORDER BY v.position, v.item_id
        """

    func viewItems(type: String, view: String) throws -> [StoredItem] {
        try viewItems(type: type, view: view) { id, body, state in StoredItem(id: id, body: Data(body), state: state) }
    }

    func viewItems<T>(type: String, view: String, _ transform: (_ id: String, _ body: UnsafeRawBufferPointer, _ state: ItemState) throws -> T) throws -> [T] {
        try read { db in
            var results: [T] = []
            try db.cachedStatement(sql: Self.viewItemsSQL).run([type, view]).forEachRow { row in
                guard let id = row.string(0), let stateText = row.string(2) else {
                    throw CacheError.storage("the cache file is damaged: a view item has no id or state")
                }
                results.append(try row.withBytes(1) { try transform(id, $0, ItemState(rawValue: stateText) ?? .normal) })
            }
            return results
        }
    }

    func item(type: String, id: String) throws -> StoredItem? {
        try read { db in
            try db.fetchOne(sql: "SELECT item_id, json, state FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, id])
                .map(Self.storedItem)
        }
    }

    func viewPage(type: String, view: String) throws -> ViewPage? {
        try read { db in
            try db.fetchOne(sql: "SELECT next_page, has_next, next_cursor FROM cache_views WHERE type_name = ? AND view_id = ?", arguments: [type, view])
                .map { ViewPage(nextPage: try $0.required("next_page"), hasNext: try $0.required("has_next"), nextCursor: $0["next_cursor"]) }
        }
    }

    func writePage(type: String, view: String, items: [StoredItem], replacing: Bool, page: ViewPage, now: Date) throws {
        try write { db in
            var kept: [(id: String, position: Double)] = []
            var base = 0.0
            var present = Set<String>()
            let listed = Set(try db.values(String.self, sql: "SELECT item_id FROM cache_view_items WHERE type_name = ? AND view_id = ?", arguments: [type, view]))
            if replacing {
                // Items waiting for the server stay where the user put them.
                kept = try db.fetchAll(
                    sql: """
                        SELECT v.item_id, v.position FROM cache_view_items v
                        JOIN cache_items i ON i.type_name = v.type_name AND i.item_id = v.item_id
                        WHERE v.type_name = ? AND v.view_id = ? AND i.state != 'normal'
                        """,
                    arguments: [type, view]
                ).map { (try $0.required("item_id"), try $0.required("position")) }
            } else {
                base = try db.value(Double.self, sql: "SELECT MAX(position) + 1 FROM cache_view_items WHERE type_name = ? AND view_id = ?", arguments: [type, view]) ?? 0
                present = listed
            }
            // Rows and places that did not change are not written: refreshing a page the
            // server has not changed, the commonest write, then only reads.
            let upsert = try Self.upsertStatement(db)
            let place = try db.cachedStatement(
                sql: """
                    INSERT INTO cache_view_items (type_name, view_id, item_id, position) VALUES (?, ?, ?, ?)
                    ON CONFLICT (type_name, view_id, item_id) DO UPDATE SET position = excluded.position
                    WHERE cache_view_items.position IS NOT excluded.position
                    """
            )
            var offset = 0.0
            for item in items where present.insert(item.id).inserted {
                try upsert.execute(arguments: [type, item.id, item.body, now.timeIntervalSince1970])
                try place.execute(arguments: [type, view, item.id, base + offset])
                offset += 1
            }
            if replacing {
                // Starting over: what the view listed and the new first page does not leaves it.
                let stay = present.union(kept.map(\.id))
                let drop = try db.cachedStatement(sql: "DELETE FROM cache_view_items WHERE type_name = ? AND view_id = ? AND item_id = ?")
                for id in listed where !stay.contains(id) {
                    try drop.execute(arguments: [type, view, id])
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO cache_views (type_name, view_id, next_page, has_next, next_cursor, last_used) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (type_name, view_id) DO UPDATE SET next_page = excluded.next_page, has_next = excluded.has_next,
                      next_cursor = excluded.next_cursor, last_used = excluded.last_used
                    """,
                arguments: [type, view, page.nextPage, page.hasNext, page.nextCursor, now.timeIntervalSince1970]
            )
        }
    }

    /// Writes a server row unless the item has a pending mutation (state not `normal`).
    private static func upsertStatement(_ db: CacheDatabase.Access) throws -> CacheDatabase.CachedStatement {
        try db.cachedStatement(
            sql: """
                INSERT INTO cache_items (type_name, item_id, json, state, updated_at) VALUES (?, ?, ?, 'normal', ?)
                ON CONFLICT (type_name, item_id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at
                WHERE cache_items.state = 'normal' AND cache_items.json IS NOT excluded.json
                """
        )
    }

    func enqueue(type: String, kind: MutationKind, item: StoredItem, insertInto views: [String], at position: InsertPosition, now: Date) throws -> Int64 {
        try write { db in
            let previous = try db.fetchOne(sql: "SELECT json, state FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, item.id])
            let places = try db.fetchAll(sql: "SELECT view_id, position FROM cache_view_items WHERE type_name = ? AND item_id = ?", arguments: [type, item.id])
                .map { SavedPlace(view: try $0.required("view_id"), position: try $0.required("position")) }
            let placesJSON = String(decoding: try JSONEncoder().encode(places), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT INTO cache_mutations (type_name, item_id, kind, json, previous_json, previous_state, previous_places, attempted, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)
                    """,
                arguments: [type, item.id, kind.rawValue, item.body, previous?["json"] as Data?, previous?["state"] as String?, placesJSON, now.timeIntervalSince1970]
            )
            let sequence = db.lastInsertedRowID
            // A delete keeps showing the row it deletes until the server agrees.
            let shown = kind == .delete ? (previous?["json"] as Data? ?? item.body) : item.body
            try db.execute(
                sql: """
                    INSERT INTO cache_items (type_name, item_id, json, state, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (type_name, item_id) DO UPDATE SET json = excluded.json, state = excluded.state, updated_at = excluded.updated_at
                    """,
                arguments: [type, item.id, shown, kind.pendingState.rawValue, now.timeIntervalSince1970]
            )
            for view in views {
                let value = try Self.position(for: position, type: type, view: view, db: db)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cache_view_items (type_name, view_id, item_id, position) VALUES (?, ?, ?, ?)",
                    arguments: [type, view, item.id, value]
                )
                try db.execute(
                    sql: """
                        INSERT INTO cache_views (type_name, view_id, next_page, has_next, last_used) VALUES (?, ?, 1, 1, ?)
                        ON CONFLICT (type_name, view_id) DO UPDATE SET last_used = excluded.last_used
                        """,
                    arguments: [type, view, now.timeIntervalSince1970]
                )
            }
            return sequence
        }
    }

    /// A position value for `position` in the view: positions are reals, so an item can go
    /// between two others without renumbering the view.
    private static func position(for position: InsertPosition, type: String, view: String, db: CacheDatabase.Access) throws -> Double {
        let arguments: CacheDatabase.Access.Arguments = [type, view]
        let scope = "FROM cache_view_items WHERE type_name = ? AND view_id = ?"
        func anchor(_ id: String) throws -> Double? {
            try db.value(Double.self, sql: "SELECT position \(scope) AND item_id = ?", arguments: arguments + [id])
        }
        let append = { try db.value(Double.self, sql: "SELECT MAX(position) + 1 \(scope)", arguments: arguments) ?? 0 }
        switch position {
        case .prepend:
            return try db.value(Double.self, sql: "SELECT MIN(position) - 1 \(scope)", arguments: arguments) ?? 0
        case .append:
            return try append()
        case .before(let id):
            guard let target = try anchor(id) else { return try append() }
            let previous = try db.value(Double.self, sql: "SELECT MAX(position) \(scope) AND position < ?", arguments: arguments + [target])
            return previous.map { ($0 + target) / 2 } ?? target - 1
        case .after(let id):
            guard let target = try anchor(id) else { return try append() }
            let next = try db.value(Double.self, sql: "SELECT MIN(position) \(scope) AND position > ?", arguments: arguments + [target])
            return next.map { ($0 + target) / 2 } ?? target + 1
        }
    }

    /// The kinds this version sends; a row of another kind (from a newer version) waits.
    private static let sendable = "kind IN ('insert', 'update', 'delete')"

    func nextPendingMutation() throws -> PendingMutation? {
        try read { db in
            try db.fetchOne(sql: "SELECT seq, type_name, item_id, kind, json, attempted FROM cache_mutations WHERE \(Self.sendable) ORDER BY seq LIMIT 1")
                .flatMap(Self.pendingMutation)
        }
    }

    func pendingMutationCount() throws -> Int {
        try read { db in try db.value(Int.self, sql: "SELECT count(*) FROM cache_mutations WHERE \(Self.sendable)") ?? 0 }
    }

    private static func pendingMutation(_ row: Row) throws -> PendingMutation? {
        guard let kind = MutationKind(rawValue: try row.required("kind")) else { return nil }
        return PendingMutation(
            sequence: try row.required("seq"),
            typeName: try row.required("type_name"),
            itemId: try row.required("item_id"),
            kind: kind,
            body: try row.required("json"),
            attempted: try row.required("attempted")
        )
    }

    func markAttempted(_ sequence: Int64, _ attempted: Bool) throws {
        try write { db in try db.execute(sql: "UPDATE cache_mutations SET attempted = ? WHERE seq = ?", arguments: [attempted, sequence]) }
    }

    func confirm(_ mutation: PendingMutation, server: StoredItem?) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM cache_mutations WHERE seq = ?", arguments: [mutation.sequence])
            var id = mutation.itemId
            if mutation.kind == .insert, let server, server.id != id {
                try Self.rekey(type: mutation.typeName, from: id, to: server.id, db: db)
                id = server.id
            }
            let later = try db.fetchAll(
                sql: "SELECT seq, json, previous_json FROM cache_mutations WHERE type_name = ? AND item_id = ? ORDER BY seq",
                arguments: [mutation.typeName, id]
            )
            // A later local change of the same item is newer than what the server returned;
            // it takes the fields the server set on insert (a key, a timestamp) that it kept.
            guard later.isEmpty else {
                if mutation.kind == .insert, let server {
                    try Self.rebase(type: mutation.typeName, id: id, later: later, inserted: mutation.body, stored: server.body, db: db)
                }
                return
            }
            if mutation.kind == .delete {
                try Self.remove(type: mutation.typeName, id: id, db: db)
            } else {
                try db.execute(
                    sql: "UPDATE cache_items SET json = ?, state = 'normal' WHERE type_name = ? AND item_id = ?",
                    arguments: [server?.body ?? mutation.body, mutation.typeName, id]
                )
            }
        }
    }

    /// Gives an item the key the server assigned on insert, in its row, its view places and
    /// the mutations queued after the insert. A copy already cached under the new key (from
    /// a refresh or a realtime event that came first) gives way.
    private static func rekey(type: String, from old: String, to new: String, db: CacheDatabase.Access) throws {
        try db.execute(sql: "DELETE FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, new])
        try db.execute(
            sql: """
                DELETE FROM cache_view_items WHERE type_name = ? AND item_id = ? AND view_id IN
                (SELECT view_id FROM cache_view_items WHERE type_name = ? AND item_id = ?)
                """,
            arguments: [type, new, type, old]
        )
        for table in ["cache_items", "cache_view_items", "cache_mutations"] {
            try db.execute(sql: "UPDATE \(table) SET item_id = ? WHERE type_name = ? AND item_id = ?", arguments: [new, type, old])
        }
    }

    /// For each field whose stored value differs from the inserted one, the later versions
    /// that still hold the inserted value take the stored one; fields changed locally since
    /// stay as they are.
    private static func rebase(type: String, id: String, later: [Row], inserted: Data, stored: Data, db: CacheDatabase.Access) throws {
        guard let sent = ItemNode.parse(inserted)?.fields, let kept = ItemNode.parse(stored)?.fields else { return }
        let sentBytes = sent.mapValues { $0.bytes() }
        let changed = kept.filter { sentBytes[$0.key] != $0.value.bytes() }
        guard !changed.isEmpty else { return }
        func rebased(_ body: Data) -> Data {
            guard let node = ItemNode.parse(body), case .object(var fields) = node.kind else { return body }
            for (index, field) in fields.enumerated() {
                if let value = changed[field.key], field.value.bytes() == sentBytes[field.key] { fields[index].value = value }
            }
            for (key, value) in changed where !fields.contains(where: { $0.key == key }) && sentBytes[key] == nil {
                fields.append((key, value))
            }
            node.kind = .object(fields)
            return node.serialized()
        }
        for row in later {
            let previous: Data? = row["previous_json"]
            try db.execute(
                sql: "UPDATE cache_mutations SET json = ?, previous_json = ? WHERE seq = ?",
                arguments: [rebased(try row.required("json")), previous.map(rebased), try row.required("seq") as Int64]
            )
        }
        if let shown = try db.value(Data.self, sql: "SELECT json FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, id]) {
            try db.execute(sql: "UPDATE cache_items SET json = ? WHERE type_name = ? AND item_id = ?", arguments: [rebased(shown), type, id])
        }
    }

    func rollback(_ mutation: PendingMutation) throws {
        try write { db in
            guard let saved = try db.fetchOne(sql: "SELECT previous_json, previous_state, previous_places FROM cache_mutations WHERE seq = ?", arguments: [mutation.sequence]) else { return }
            try db.execute(
                sql: "DELETE FROM cache_mutations WHERE type_name = ? AND item_id = ? AND seq >= ?",
                arguments: [mutation.typeName, mutation.itemId, mutation.sequence]
            )
            try Self.remove(type: mutation.typeName, id: mutation.itemId, db: db)
            guard let body: Data = saved["previous_json"] else { return }
            try db.execute(
                sql: "INSERT INTO cache_items (type_name, item_id, json, state, updated_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [mutation.typeName, mutation.itemId, body, saved["previous_state"] as String? ?? "normal", Date().timeIntervalSince1970]
            )
            let placesJSON: String = saved["previous_places"] ?? "[]"
            let places = (try? JSONDecoder().decode([SavedPlace].self, from: Data(placesJSON.utf8))) ?? []
            for place in places {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cache_view_items (type_name, view_id, item_id, position) VALUES (?, ?, ?, ?)",
                    arguments: [mutation.typeName, place.view, mutation.itemId, place.position]
                )
            }
        }
    }

    func applyRemote(type: String, kind: MutationKind, item: StoredItem, insertInto views: [String], at position: InsertPosition, now: Date) throws -> Bool {
        try write { db in
            let state = try db.value(String.self, sql: "SELECT state FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, item.id])
            guard state == nil || state == ItemState.normal.rawValue else { return false }
            switch kind {
            case .delete:
                guard state != nil else { return false }
                try Self.remove(type: type, id: item.id, db: db)
            case .insert, .update:
                try Self.upsertStatement(db).execute(arguments: [type, item.id, item.body, now.timeIntervalSince1970])
                guard kind == .insert else { break }
                for view in views {
                    let present = try db.value(Bool.self, sql: "SELECT 1 FROM cache_view_items WHERE type_name = ? AND view_id = ? AND item_id = ?", arguments: [type, view, item.id]) ?? false
                    guard !present else { continue }
                    let value = try Self.position(for: position, type: type, view: view, db: db)
                    try db.execute(sql: "INSERT INTO cache_view_items (type_name, view_id, item_id, position) VALUES (?, ?, ?, ?)", arguments: [type, view, item.id, value])
                }
            }
            return true
        }
    }

    func evict(_ policy: EvictionPolicy, inUse: Set<ViewKey>, now: Date) throws -> Int {
        try write { db in
            let views = try db.fetchAll(
                sql: """
                    SELECT type_name, view_id, last_used FROM cache_views v
                    WHERE NOT EXISTS (SELECT 1 FROM cache_view_items x JOIN cache_items i ON i.type_name = x.type_name AND i.item_id = x.item_id
                                      WHERE x.type_name = v.type_name AND x.view_id = v.view_id AND i.state != 'normal')
                    ORDER BY type_name, last_used DESC
                    """
            )
            var idleCount: [String: Int] = [:]
            var dropped = 0
            for row in views {
                let key = ViewKey(typeName: try row.required("type_name"), view: try row.required("view_id"))
                guard !inUse.contains(key) else { continue }
                let lastUsed: Double = try row.required("last_used")
                let rank = idleCount[key.typeName, default: 0]
                idleCount[key.typeName] = rank + 1
                guard rank >= policy.maximumIdleViews || lastUsed < now.timeIntervalSince1970 - policy.maximumAge else { continue }
                try db.execute(sql: "DELETE FROM cache_view_items WHERE type_name = ? AND view_id = ?", arguments: [key.typeName, key.view])
                try db.execute(sql: "DELETE FROM cache_views WHERE type_name = ? AND view_id = ?", arguments: [key.typeName, key.view])
                dropped += 1
            }
            try db.execute(
                sql: """
                    DELETE FROM cache_items WHERE state = 'normal' AND NOT EXISTS
                    (SELECT 1 FROM cache_view_items v WHERE v.type_name = cache_items.type_name AND v.item_id = cache_items.item_id)
                    """
            )
            return dropped
        }
    }

    private static func remove(type: String, id: String, db: CacheDatabase.Access) throws {
        try db.execute(sql: "DELETE FROM cache_view_items WHERE type_name = ? AND item_id = ?", arguments: [type, id])
        try db.execute(sql: "DELETE FROM cache_items WHERE type_name = ? AND item_id = ?", arguments: [type, id])
    }

    private static func storedItem(_ row: Row) throws -> StoredItem {
        StoredItem(id: try row.required(0), body: try row.required(1), state: ItemState(rawValue: try row.required(2)) ?? .normal)
    }
}

/// Where an item was in a view before a mutation, kept with the mutation for its rollback.
private struct SavedPlace: Codable {
    var view: String
    var position: Double
}
