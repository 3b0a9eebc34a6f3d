import Foundation
import SelfDB

/// Items to stored items and back, in the cache's binary format (`ItemFormat`): an item
/// reads back exactly (UUIDs and dates as themselves, where the wire's ISO 8601 text keeps
/// milliseconds only), and reading parses no text — Foundation's JSON decoder, UUID parsing
/// in particular, dominated reading a view. Items written by earlier versions as JSON text
/// are still read.
enum ItemCoding {
    /// The item's cache key and encoded row.
    static func encode<Item: CacheableModel>(_ item: Item, state: ItemState = .normal) throws -> StoredItem {
        let body: Data
        do {
            body = try ItemEncoder.encode(item)
        } catch {
            throw CacheError.invalidArgument("cannot encode a \(Item.self) item: \(error)")
        }
        let key = item.cacheKey
        guard !key.isEmpty else { throw CacheError.invalidArgument("the \(Item.self) item has an empty cache key") }
        return StoredItem(id: key, body: body, state: state)
    }

    /// Items' cache keys and encoded rows.
    static func encode<Item: CacheableModel>(_ items: [Item], state: ItemState = .normal) throws -> [StoredItem] {
        try items.map { try encode($0, state: state) }
    }

    /// The decoded items of a view, decoded in place as they are read.
    static func viewItems<Row: CacheableModel>(_ storage: any CacheStorage, view: String, as type: Row.Type) throws -> [CachedItem<Row>] {
        try storage.viewItems(type: Row.cacheTypeName, view: view) { id, body, state in
            try decodeItem(id: id, body: body, state: state, as: Row.self)
        }
    }

    /// Decodes one item.
    static func decodeOne<Row: CacheableModel>(_ item: StoredItem, as type: Row.Type) throws -> CachedItem<Row> {
        try item.body.withUnsafeBytes { try decodeItem(id: item.id, body: $0, state: item.state, as: type) }
    }

    /// An item from its parts; a body that does not decode is a `corruptItem` naming it.
    private static func decodeItem<Row: CacheableModel>(id: String, body: UnsafeRawBufferPointer, state: ItemState, as type: Row.Type) throws -> CachedItem<Row> {
        do {
            return CachedItem(row: try decodeRow(body, as: Row.self), state: state, id: id)
        } catch {
            throw CacheError.corruptItem(type: Row.cacheTypeName, id: id, reason: "\(error)")
        }
    }

    /// Decodes an item body as this version writes it, or as JSON text as earlier versions
    /// did (dates as ISO 8601 text, or as numbers).
    static func decodeRow<Row: CacheableModel>(_ body: Data, as type: Row.Type) throws -> Row {
        try body.withUnsafeBytes { try decodeRow($0, as: type) }
    }

    private static func decodeRow<Row: CacheableModel>(_ body: UnsafeRawBufferPointer, as type: Row.Type) throws -> Row {
        if ItemFormat.isBinary(body) { return try ItemDecoder.decode(Row.self, from: body) }
        let text = Data(body)
        do {
            return try JSONCoding.makeDecoder().decode(Row.self, from: text)
        } catch {
            guard let row = try? JSONDecoder().decode(Row.self, from: text) else { throw error }
            return row
        }
    }
}
