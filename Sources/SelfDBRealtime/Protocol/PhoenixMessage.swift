import SelfDBRuntime

/// One Phoenix Channels frame: a join, leave, heartbeat, reply or pushed event.
public struct PhoenixMessage: Sendable, Hashable {
    /// The `ref` of the join this frame belongs to (V2 frames only; nil in V1).
    public var joinRef: String?
    /// Matches a reply to its request; nil on server pushes.
    public var ref: String?
    /// `phoenix` for heartbeats, `table:<name>` for SelfDB tables.
    public var topic: String
    /// `phx_join`, `phx_leave`, `phx_reply`, `heartbeat`, `insert`...
    public var event: String
    /// The event's body.
    public var payload: JSONValue

    /// A frame.
    public init(joinRef: String? = nil, ref: String?, topic: String, event: String, payload: JSONValue = .object([:])) {
        self.joinRef = joinRef
        self.ref = ref
        self.topic = topic
        self.event = event
        self.payload = payload
    }
}
