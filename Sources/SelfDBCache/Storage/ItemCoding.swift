import Foundation
import SelfDB

/// Items to stored items and back.
///
/// The cache's JSON is its own: dates are written as Foundation encodes them by default
/// (seconds since 2001 as a shortest round-trip number), so an item reads back exactly —
/// the wire's ISO 8601 text keeps milliseconds only, and servers send microseconds — and
/// decoding needs no per-date parsing. Items written by earlier versions, with dates as
/// ISO 8601 text, are still read (item by item, with the client's decoder).
enum ItemCoding {
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        JSONDecoder()
    }

    /// The item's cache key and JSON text.
    static func encode<Item: CacheableModel>(_ item: Item, state: ItemState = .normal) throws -> StoredItem {
        try encode([item], state: state)[0]
    }

    /// Items' cache keys and JSON texts, with one encoder for the batch (a page is written in
    /// one go, and making an encoder per item costs as much as encoding it).
    static func encode<Item: CacheableModel>(_ items: [Item], state: ItemState = .normal) throws -> [StoredItem] {
        let encoder = makeEncoder()
        return try items.map { item in
            let data: Data
            do {
                data = try encoder.encode(item)
            } catch {
                throw CacheError.invalidArgument("cannot encode a \(Item.self) item: \(error)")
            }
            let key = item.cacheKey
            guard !key.isEmpty else { throw CacheError.invalidArgument("the \(Item.self) item has an empty cache key") }
            return StoredItem(id: key, json: String(decoding: data, as: UTF8.self), state: state)
        }
    }

    /// Decodes items in one pass (one JSON array), falling back to item by item to name a
    /// corrupt one.
    static func decode<Row: CacheableModel>(_ items: [StoredItem], as type: Row.Type) throws -> [CachedItem<Row>] {
        guard !items.isEmpty else { return [] }
        var text = "["
        text.reserveCapacity(items.reduce(2) { $0 + $1.json.utf8.count + 1 })
        for (index, item) in items.enumerated() {
            if index > 0 { text += "," }
            text += item.json
        }
        text += "]"
        if let rows = try? makeDecoder().decode([Row].self, from: Data(text.utf8)) {
            return zip(rows, items).map { CachedItem(row: $0, state: $1.state, id: $1.id) }
        }
        return try items.map { try decodeOne($0, as: type) }
    }

    /// Decodes one item.
    static func decodeOne<Row: CacheableModel>(_ item: StoredItem, as type: Row.Type) throws -> CachedItem<Row> {
        do {
            return CachedItem(row: try decodeRow(item.json, as: Row.self), state: item.state, id: item.id)
        } catch {
            throw CacheError.corruptItem(type: Row.cacheTypeName, id: item.id, reason: "\(error)")
        }
    }

    /// Decodes the JSON of an item as this version writes it, or as earlier versions did.
    static func decodeRow<Row: CacheableModel>(_ json: String, as type: Row.Type) throws -> Row {
        let data = Data(json.utf8)
        do {
            return try makeDecoder().decode(Row.self, from: data)
        } catch {
            guard let row = try? JSONCoding.makeDecoder().decode(Row.self, from: data) else { throw error }
            return row
        }
    }
}
