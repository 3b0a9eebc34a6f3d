import Foundation
import SelfDBRuntime

/// One change pushed on a table channel, as the server sent it.
///
/// The design note has `[String: Any]` dictionaries; these are `JSONValue` dictionaries so the
/// payload is `Sendable` and keeps integer and decimal values apart. Use ``decodeNew(as:)`` and
/// ``decodeOld(as:)`` for a typed row, or ``RealtimeClient/changes(_:)`` for a typed stream.
public struct RealtimePayload: Sendable, Hashable {
    /// What happened: `.insert`, `.update` or `.delete`.
    public let event: RealtimeEvent
    /// The table it happened to.
    public let table: String
    /// The row after the change (insert and update).
    public let new: [String: JSONValue]?
    /// The row before the change (update and delete, when the server sends it).
    public let old: [String: JSONValue]?
    /// The whole payload object as received.
    public let raw: [String: JSONValue]

    /// A payload.
    public init(event: RealtimeEvent, table: String, new: [String: JSONValue]?, old: [String: JSONValue]?, raw: [String: JSONValue]) {
        self.event = event
        self.table = table
        self.new = new
        self.old = old
        self.raw = raw
    }

    /// Reads a pushed frame's payload. The outer event (`insert`) and the inner one (`INSERT`)
    /// must agree on a change event; the table falls back to the topic's.
    init(frameEvent: String, topic: String, payload: JSONValue) throws(RealtimeError) {
        guard let raw = payload.objectValue else {
            throw .malformedFrame("\(frameEvent) on \(topic): the payload is not an object")
        }
        let name = raw["event"]?.stringValue?.lowercased() ?? frameEvent.lowercased()
        guard let event = RealtimeEvent(rawValue: name), event != .all else {
            throw .malformedFrame("\(frameEvent) on \(topic): unknown event '\(name)'")
        }
        let table = raw["table"]?.stringValue ?? topic.split(separator: ":", maxSplits: 1).last.map(String.init) ?? topic
        self.init(event: event, table: table, new: raw["new"]?.objectValue, old: raw["old"]?.objectValue, raw: raw)
    }

    /// The new row decoded as `Row`; nil when there is none.
    public func decodeNew<Row: Decodable>(as type: Row.Type) throws -> Row? {
        try new.map { try Self.decode($0, as: type) }
    }

    /// The old row decoded as `Row`; nil when there is none.
    public func decodeOld<Row: Decodable>(as type: Row.Type) throws -> Row? {
        try old.map { try Self.decode($0, as: type) }
    }

    private static func decode<Row: Decodable>(_ row: [String: JSONValue], as type: Row.Type) throws -> Row {
        let data = try JSONEncoder().encode(JSONValue.object(row))
        return try JSONCoding.makeDecoder().decode(type, from: data)
    }
}
