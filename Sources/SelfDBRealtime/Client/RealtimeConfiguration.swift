import Foundation
import Logging
import SelfDBRuntime

/// How the realtime client talks to the server.
public struct RealtimeConfiguration: Sendable {
    /// The frame format: ``PhoenixSerializer/v1`` for SelfDB (the default), ``PhoenixSerializer/v2``
    /// for standard Phoenix servers.
    public var serializer: PhoenixSerializer
    /// How often a heartbeat is sent. A heartbeat unanswered after ``replyTimeout`` (or when
    /// the next is due, if that comes first) means the connection is dead: the socket is closed
    /// and the client reconnects.
    public var heartbeatInterval: Duration
    /// How long a join, a leave or a heartbeat waits for its reply; a new socket that proves
    /// nothing in that time (its first heartbeat or a join answered) is dropped as dead.
    public var replyTimeout: Duration
    /// Delays between reconnect attempts.
    public var reconnectBackoff: ReconnectBackoff
    /// Opens WebSockets (URLSession on Apple platforms, swift-websocket's NIO client on Linux).
    public var connector: any WebSocketConnector
    /// What makes a dropped socket try again at once instead of at the end of its backoff: by
    /// default, on Apple platforms, the network path returning and the app coming back to the
    /// foreground (``platformReconnectTriggers()``); none elsewhere.
    public var reconnectTriggers: [any ReconnectTrigger]
    /// Where the client reports connects, joins, reconnects (info) and heartbeats (trace).
    /// Never the socket URL (it carries the API key and token). Silent by default.
    public var logger: Logger

    /// The defaults: V1 frames, a heartbeat every 30 s, 10 s reply timeout.
    public init(
        serializer: PhoenixSerializer = .v1,
        heartbeatInterval: Duration = .seconds(30),
        replyTimeout: Duration = .seconds(10),
        reconnectBackoff: ReconnectBackoff = ReconnectBackoff(),
        connector: any WebSocketConnector = PlatformWebSocketConnector(),
        reconnectTriggers: [any ReconnectTrigger] = platformReconnectTriggers(),
        logger: Logger = .selfdbDisabled
    ) {
        self.logger = logger
        self.reconnectTriggers = reconnectTriggers
        self.serializer = serializer
        self.heartbeatInterval = heartbeatInterval
        self.replyTimeout = replyTimeout
        self.reconnectBackoff = reconnectBackoff
        self.connector = connector
    }
}

/// Exponential backoff with jitter, so clients that lost the same server do not all come
/// back at the same instant.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The delay before the first attempt.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    /// Growth per failed attempt.
    public var multiplier: Double
    /// Fraction of each delay that is random: 0.5 waits between 50% and 100% of it.
    public var jitter: Double

    /// 0.5 s doubling up to 30 s, half of it random. A socket that opens and dies before it
    /// proves healthy (a join or heartbeat answered) counts as a failed attempt.
    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), multiplier: Double = 2, jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(0, jitter), 1)
    }

    /// The delay before attempt `attempt` (0 for the first).
    public func delay(attempt: Int) -> Duration {
        let initialSeconds = Self.seconds(initial)
        let capped = min(Self.seconds(maximum), initialSeconds * pow(multiplier, Double(min(attempt, 62))))
        let randomized = capped * (1 - jitter * Double.random(in: 0...1))
        return .milliseconds(Int64((randomized * 1_000).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
