import GRDB

extension PendingQueue {
    /// `keys` (a round, oldest first) in an order where a record named by a value of another
    /// record of the round comes before it: a task before the comment written first that
    /// names it.
    ///
    /// Protocol 2 says nothing of which tables refer to which (its manifest has no parents), so
    /// the round is pushed in the order it was written. A server that checks a child's parent
    /// (`owner_only`, or the operator's `synchro_write_protect` hook) refuses a child that
    /// arrives before its parent, for good. A table's parent is always another table, so a
    /// round of one table keeps its order without reading anything; otherwise the rows of the
    /// round are read once, and every text value that is the key of another record of the
    /// round (compared without case) puts that record first. Records that name nothing keep
    /// their order; a cycle of names keeps the order of its first member.
    static func referenceOrder(_ keys: [(table: String, id: String)], schema: LocalSchema, in db: Database) throws -> [(table: String, id: String)] {
        guard let first = keys.first, keys.contains(where: { $0.table != first.table }) else { return keys }
        var position: [String: Int] = [:]
        position.reserveCapacity(keys.count)
        for (index, key) in keys.enumerated() { position[key.id.lowercased()] = index }
        // What each record names, by position.
        var named: [Int: [Int]] = [:]
        for table in Set(keys.map(\.table)).sorted() {
            guard let local = schema.table(table) else { continue }
            let keyColumn = local.primaryKey.quotedDatabaseIdentifier
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT * FROM \(local.name.quotedDatabaseIdentifier) WHERE \(keyColumn) IN (SELECT record_id FROM _synchro_pending WHERE table_name = ?)",
                arguments: [table]
            )
            while let row = try rows.next() {
                guard let ownKey = String.fromDatabaseValue(row[local.primaryKey] as DatabaseValue), let own = position[ownKey.lowercased()] else { continue }
                for value in row.databaseValues {
                    guard case .string(let text) = value.storage, let other = position[text.lowercased()], other != own else { continue }
                    named[own, default: []].append(other)
                }
            }
        }
        guard !named.isEmpty else { return keys }
        // Depth first, without recursion (a chain may be long): each record after what it names.
        var placed = [Bool](repeating: false, count: keys.count)
        var entered = [Bool](repeating: false, count: keys.count)
        var order: [(table: String, id: String)] = []
        order.reserveCapacity(keys.count)
        for start in keys.indices where !placed[start] {
            var stack: [(index: Int, next: Int)] = [(start, 0)]
            entered[start] = true
            while let top = stack.last {
                let names = named[top.index] ?? []
                if top.next < names.count {
                    stack[stack.count - 1].next += 1
                    let other = names[top.next]
                    if !placed[other], !entered[other] {
                        entered[other] = true
                        stack.append((other, 0))
                    }
                } else {
                    stack.removeLast()
                    placed[top.index] = true
                    order.append(keys[top.index])
                }
            }
        }
        return order
    }
}
