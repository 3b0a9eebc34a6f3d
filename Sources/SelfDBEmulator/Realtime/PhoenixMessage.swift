import EmulatorSupport

/// One Phoenix Channels message, independent of how it is framed on the socket.
struct PhoenixMessage: Sendable, Equatable {
    var joinRef: JSONValue
    var ref: JSONValue
    var topic: String
    var event: String
    var payload: JSONValue
}

/// The two Phoenix serializers.
///
/// V1 frames are JSON objects `{"topic","event","payload","ref"}`; V2 frames are arrays
/// `[join_ref, ref, topic, event, payload]`. A frame in the other serializer's shape is a
/// protocol error, and like the real server we close the socket on it.
enum PhoenixSerializer: Sendable {
    case v1
    case v2

    func decode(_ text: String) -> PhoenixMessage? {
        guard let value = try? JSONParser.parse(text) else { return nil }
        switch self {
        case .v1:
            guard let object = value.objectValue, let topic = object["topic"]?.stringValue,
                let event = object["event"]?.stringValue
            else { return nil }
            return PhoenixMessage(
                joinRef: object["join_ref"] ?? .null,
                ref: object["ref"] ?? .null,
                topic: topic,
                event: event,
                payload: object["payload"] ?? .object(JSONObject())
            )
        case .v2:
            guard let array = value.arrayValue, array.count == 5, let topic = array[2].stringValue,
                let event = array[3].stringValue
            else { return nil }
            return PhoenixMessage(joinRef: array[0], ref: array[1], topic: topic, event: event, payload: array[4])
        }
    }

    func encode(_ message: PhoenixMessage) -> String {
        switch self {
        case .v1:
            JSONWriter.string(
                .object(
                    JSONObject([
                        ("topic", .string(message.topic)),
                        ("event", .string(message.event)),
                        ("payload", message.payload),
                        ("ref", message.ref),
                    ])
                )
            )
        case .v2:
            JSONWriter.string(
                .array([message.joinRef, message.ref, .string(message.topic), .string(message.event), message.payload])
            )
        }
    }
}
