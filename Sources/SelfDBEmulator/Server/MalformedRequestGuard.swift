import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Answers a request that is not valid HTTP (a NUL byte in a header, bare LF line endings,
/// …) with `400 Bad Request` and closes the connection, as production servers do.
///
/// Hummingbird turns NIO's own protocol-error handler off and handles parse errors itself,
/// but only once the WebSocket upgrade handler has seen a complete request head: a first
/// request that never parses leaves the upgrade pending and the socket open until the
/// client gives up. This wraps the child channel and adds two handlers to its pipeline:
/// one at the socket end, whose context writes bytes that no HTTP or WebSocket encoder
/// sees, and one at the far end, which catches the parser's error and writes through it.
/// Neither unwraps what it forwards, so they stay harmless after a WebSocket upgrade.
///
/// The 400 goes out as soon as the parser fails. A client that pipelines a bad request
/// behind a good one (none of ours does) may see the 400 before the good one's answer.
struct MalformedRequestGuard<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(SocketEnd(), position: .first)
        }
        .flatMap { inner.setup(channel: channel, logger: logger) }
        .flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(ParseErrorResponder(), position: .last)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Marks the socket end of the pipeline; writes made from its context go straight out.
private final class SocketEnd: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
}

/// Writes `400` + `Connection: close` on an HTTP parse error and closes the channel.
private final class ParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private static let answer = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        if let socketEnd = try? context.pipeline.syncOperations.context(handlerType: SocketEnd.self) {
            let bytes = socketEnd.channel.allocator.buffer(string: Self.answer)
            // On the channel's event loop already (this is a handler callback).
            socketEnd.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            context.close(promise: nil)
        }
    }
}
