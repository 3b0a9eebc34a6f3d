import Foundation
import GRDB

/// The order a page's records are written in: by table, then by record key.
///
/// A page comes in the server's order, which scatters its keys (UUIDs) over every B-tree the
/// rows go into: the table, its key index, the provenance and its index. Written in key order,
/// neighbouring rows share pages, which SQLite then splits at the end rather than in the
/// middle, and a statement of many rows (``MultiRowStatement``) journals far fewer pages. With
/// both, a protocol-2 page of 10,000 new rows is applied in about 60 % of the time it took one
/// statement per row in the page's order.
///
/// The order changes nothing a reader of the transaction can see. A record's own changes
/// (a scope that leaves it, one that takes it) keep their order in the page, and the synced
/// tables have no foreign keys. An app's own trigger on a synced table may see it, though (a
/// conversation's last message, set by each message inserted): a page that touches such a
/// table is written in its own order.
enum WriteOrder {
    /// The positions of `items` in the order to write them. `key` gives an item's table and
    /// record key (nil: the item is not written, and goes where an empty key would).
    static func positions<Item>(of items: [Item], in db: Database, key: (Item) -> (table: String, id: String?)) throws -> [Int] {
        let pageOrder = Array(items.indices)
        guard items.count > 1 else { return pageOrder }
        var tables: Set<String> = []
        var previousTable: String?
        let keys = items.map { item in
            let (table, id) = key(item)
            if table != previousTable {
                tables.insert(table)
                previousTable = table
            }
            return sortKey(table: table, id: id ?? "")
        }
        if zip(keys, keys.dropFirst()).allSatisfy({ compare($0, $1) <= 0 }) { return pageOrder }
        if try !tablesWithAppTriggers(in: db).isDisjoint(with: tables) { return pageOrder }
        // Stable: equal keys (one record's changes) keep the page's order.
        return pageOrder.sorted { left, right in
            let order = compare(keys[left], keys[right])
            return order == 0 ? left < right : order < 0
        }
    }

    /// The table's name, a zero byte, and the key with ASCII letters in lower case: the order
    /// of `COLLATE NOCASE`, which the synced tables' keys and the provenance's use.
    static func sortKey(table: String, id: String) -> [UInt8] {
        var table = table
        var id = id
        return table.withUTF8 { table in
            id.withUTF8 { id in
                [UInt8](unsafeUninitializedCapacity: table.count + 1 + id.count) { buffer, count in
                    for byte in table {
                        buffer[count] = byte
                        count += 1
                    }
                    buffer[count] = 0
                    count += 1
                    for byte in id {
                        buffer[count] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                        count += 1
                    }
                }
            }
        }
    }

    /// Negative, zero or positive as `left` sorts before, with or after `right`, byte by byte.
    static func compare(_ left: [UInt8], _ right: [UInt8]) -> Int {
        left.withUnsafeBytes { left in
            right.withUnsafeBytes { right in
                let shared = min(left.count, right.count)
                if shared > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, shared)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }

    /// The tables that have triggers other than the client's own change triggers, temporary
    /// ones (the app's, on the writer's connection) included.
    static func tablesWithAppTriggers(in db: Database) throws -> Set<String> {
        let names = try String.fetchAll(
            db,
            sql: """
                SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE '\\_synchro\\_%' ESCAPE '\\'
                UNION SELECT tbl_name FROM sqlite_temp_master WHERE type = 'trigger'
                """
        )
        return Set(names)
    }
}
