import Foundation
import SelfDB

/// Rows to stored items and back, with the client's JSON conventions.
enum ItemCoding {
    /// The row's cache key and JSON text.
    static func encode<Row: TableModel>(_ row: Row, state: ItemState = .normal) throws -> StoredItem {
        try encode([row], state: state)[0]
    }

    /// Rows' cache keys and JSON texts, with one encoder for the batch (a page is written in
    /// one go, and making an encoder per row costs as much as encoding it).
    static func encode<Row: TableModel>(_ rows: [Row], state: ItemState = .normal) throws -> [StoredItem] {
        let encoder = JSONCoding.makeEncoder()
        return try rows.map { row in
            let data: Data
            do {
                data = try encoder.encode(row)
            } catch {
                throw CacheError.invalidArgument("cannot encode a \(Row.self) row: \(error)")
            }
            // Foundation's untyped parser is several times faster than decoding JSONValues,
            // and only the key is wanted.
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            guard let id = object?[Row.primaryKey.rawValue].flatMap(key(any:)) else {
                throw CacheError.invalidArgument("the \(Row.self) row has no value in its primary key column '\(Row.primaryKey.rawValue)'")
            }
            return StoredItem(id: id, json: String(decoding: data, as: UTF8.self), state: state)
        }
    }

    /// The text form of a primary key value from `JSONSerialization`.
    private static func key(any value: Any) -> String? {
        switch value {
        case let text as String: text
        case let number as NSNumber where number.doubleValue == Double(number.int64Value): String(number.int64Value)
        default: nil
        }
    }

    /// The text form of a primary key value.
    static func key(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    /// Decodes items in one pass (one JSON array), falling back to item by item to name a
    /// corrupt one.
    static func decode<Row: TableModel>(_ items: [StoredItem], as type: Row.Type) throws -> [CachedItem<Row>] {
        guard !items.isEmpty else { return [] }
        var text = "["
        text.reserveCapacity(items.reduce(2) { $0 + $1.json.utf8.count + 1 })
        for (index, item) in items.enumerated() {
            if index > 0 { text += "," }
            text += item.json
        }
        text += "]"
        let decoder = JSONCoding.makeDecoder()
        if let rows = try? decoder.decode([Row].self, from: Data(text.utf8)) {
            return zip(rows, items).map { CachedItem(row: $0, state: $1.state, id: $1.id) }
        }
        return try items.map { try decodeOne($0, as: type) }
    }

    /// Decodes one item.
    static func decodeOne<Row: TableModel>(_ item: StoredItem, as type: Row.Type) throws -> CachedItem<Row> {
        do {
            let row = try JSONCoding.makeDecoder().decode(Row.self, from: Data(item.json.utf8))
            return CachedItem(row: row, state: item.state, id: item.id)
        } catch {
            throw CacheError.corruptItem(type: Row.tableName, id: item.id, reason: "\(error)")
        }
    }
}
