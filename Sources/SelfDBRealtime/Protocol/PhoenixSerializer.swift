import Foundation
import SelfDBRuntime

/// The two Phoenix frame formats.
///
/// SelfDB speaks V1 — JSON objects `{"topic","event","payload","ref"}` on `/realtime/socket` —
/// and closes the socket on anything else. Standard Phoenix servers default to V2 — arrays
/// `[join_ref, ref, topic, event, payload]` on `/socket/websocket?vsn=2.0.0`.
public enum PhoenixSerializer: String, Sendable, Hashable, CaseIterable {
    /// Object frames (SelfDB).
    case v1
    /// Array frames, `vsn=2.0.0`.
    case v2

    /// The socket path under the server's base URL and the `vsn` query value, if any.
    var endpoint: (path: String, vsn: String?) {
        switch self {
        case .v1: ("realtime/socket", nil)
        case .v2: ("realtime/socket/websocket", "2.0.0")
        }
    }

    /// The text frame for `message`.
    public func encode(_ message: PhoenixMessage) -> String {
        let ref = message.ref.map(JSONValue.string) ?? .null
        let value: JSONValue
        switch self {
        case .v1:
            value = .object(["topic": .string(message.topic), "event": .string(message.event), "payload": message.payload, "ref": ref])
        case .v2:
            value = .array([message.joinRef.map(JSONValue.string) ?? .null, ref, .string(message.topic), .string(message.event), message.payload])
        }
        // Encoding a JSONValue cannot fail (no floats that JSON lacks reach here: NaN and
        // infinities are not representable in a JSONValue decoded from JSON).
        let data = (try? Self.encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a text frame; throws ``RealtimeError/malformedFrame(_:)`` for anything that is not
    /// a frame of this format.
    public func decode(_ text: String) throws(RealtimeError) -> PhoenixMessage {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw .malformedFrame(Self.excerpt(text, "not JSON"))
        }
        switch (self, value) {
        case (.v1, .object(let fields)):
            guard let topic = fields["topic"]?.stringValue, let event = fields["event"]?.stringValue else {
                throw .malformedFrame(Self.excerpt(text, "missing topic or event"))
            }
            return PhoenixMessage(
                joinRef: Self.reference(fields["join_ref"]),
                ref: Self.reference(fields["ref"]),
                topic: topic,
                event: event,
                payload: fields["payload"] ?? .object([:])
            )
        case (.v2, .array(let items)) where items.count == 5:
            guard let topic = items[2].stringValue, let event = items[3].stringValue else {
                throw .malformedFrame(Self.excerpt(text, "topic and event must be strings"))
            }
            return PhoenixMessage(joinRef: Self.reference(items[0]), ref: Self.reference(items[1]), topic: topic, event: event, payload: items[4])
        case (.v1, _):
            throw .malformedFrame(Self.excerpt(text, "expected a JSON object"))
        case (.v2, _):
            throw .malformedFrame(Self.excerpt(text, "expected an array of 5"))
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Refs are strings in Phoenix clients, but a server may echo numbers.
    private static func reference(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    private static func excerpt(_ text: String, _ problem: String) -> String {
        let shown = text.count > 120 ? String(text.prefix(120)) + "…" : text
        return "\(problem): \(shown)"
    }
}
