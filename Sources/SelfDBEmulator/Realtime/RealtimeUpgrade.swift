import Foundation
import Hummingbird
import HummingbirdWebSocket

/// Decides whether an HTTP request becomes a realtime socket, and with which serializer.
///
/// `/realtime/socket` always speaks V1 (SelfDB ignores `vsn` there);
/// `/realtime/socket/websocket` speaks V2 when `vsn=2.0.0`, as Phoenix does.
struct RealtimeUpgrade: Sendable {
    let services: EmulatorServices

    func shouldUpgrade(_ request: HTTPRequest) -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        let target = request.path ?? "/"
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let query = QueryParameters(rawQuery: parts.count > 1 ? String(parts[1]) : "")
        let serializer: PhoenixSerializer
        switch path {
        case "/realtime/socket", "/realtime/socket/":
            serializer = .v1
        case "/realtime/socket/websocket", "/realtime/socket/websocket/":
            serializer = query["vsn"]?.hasPrefix("2.") == true ? .v2 : .v1
        default:
            return .dontUpgrade
        }
        let key = query["X-API-Key"] ?? request.headerFields[.apiKey]
        // A missing or wrong key falls through to HTTP, which answers 406/401.
        guard key == services.configuration.apiKey else { return .dontUpgrade }
        // Refused as a server without a reachable realtime service refuses it: HTTP answers (404).
        guard services.realtime.acceptsConnections.current else { return .dontUpgrade }
        services.controls.record(RecordedRequest(method: "GET", path: path, query: parts.count > 1 ? String(parts[1]) : nil, status: 101))
        let connection = RealtimeConnection(
            hub: services.realtime,
            serializer: serializer,
            idleTimeout: .milliseconds(Int64(services.configuration.realtimeIdleTimeout * 1000))
        )
        return .upgrade([:]) { inbound, outbound, _ in
            await connection.run(inbound: inbound, outbound: outbound)
        }
    }
}
