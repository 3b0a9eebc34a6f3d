import Foundation

#if canImport(Network)
import Network
#endif

/// Something that says "try to reconnect now" (the app came back to the foreground, the
/// network path returned), so a dropped socket comes back without waiting out the backoff.
/// ``RealtimeConfiguration/reconnectTriggers`` lists them; a test or an app can add its own.
public protocol ReconnectTrigger: Sendable {
    /// A signal each time a reconnect should be tried, for as long as the stream is iterated.
    func signals() -> AsyncStream<Void>
}

/// The triggers a platform offers: on iOS, iPadOS, Mac Catalyst, tvOS, visionOS and macOS the
/// network path becoming usable (`NetworkPathTrigger`) and the app coming to the foreground
/// (`ForegroundTrigger`); none elsewhere (watchOS has no realtime socket, Linux no such
/// signals).
public func platformReconnectTriggers() -> [any ReconnectTrigger] {
    #if canImport(Network) && (os(iOS) || os(tvOS) || os(visionOS) || os(macOS))
    [NetworkPathTrigger(), ForegroundTrigger()]
    #else
    []
    #endif
}

#if canImport(Network) && canImport(Darwin)
/// Signals when the network path becomes usable again: an `NWPathMonitor` (iOS 12, macOS
/// 10.14, tvOS 12, watchOS 5, visionOS 1) path update whose `status` turns `.satisfied` after
/// one that was not.
public struct NetworkPathTrigger: ReconnectTrigger {
    /// A trigger on every interface.
    public init() {}

    public func signals() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let watch = PathWatch()
            watch.monitor.pathUpdateHandler = { path in
                if watch.update(path.status == .satisfied) { continuation.yield() }
            }
            watch.monitor.start(queue: DispatchQueue(label: "selfdb.realtime.network-path"))
            continuation.onTermination = { _ in watch.monitor.cancel() }
        }
    }

    /// The monitor and whether its path was satisfied at the last update.
    private final class PathWatch: @unchecked Sendable {
        // Unchecked: `satisfied` is touched only by the monitor's handler, which runs on the
        // monitor's one serial queue; `monitor` is only started and cancelled.
        let monitor = NWPathMonitor()
        private var satisfied: Bool?

        /// Records `now`; whether the path just turned satisfied (not at the first update).
        func update(_ now: Bool) -> Bool {
            defer { satisfied = now }
            return now && satisfied == false
        }
    }
}
#endif

#if os(iOS) || os(tvOS) || os(visionOS) || os(macOS)
/// Signals when the app comes back to the foreground: `UIApplication`'s
/// `willEnterForegroundNotification` (iOS, iPadOS, Mac Catalyst, tvOS, visionOS), or
/// `NSApplication`'s `didBecomeActiveNotification` on macOS. They are observed by their
/// names on `NotificationCenter.default`, so this module links neither UIKit nor AppKit.
public struct ForegroundTrigger: ReconnectTrigger {
    /// A trigger on the app's foreground notification.
    public init() {}

    public func signals() -> AsyncStream<Void> {
        #if os(macOS)
        let name = Notification.Name("NSApplicationDidBecomeActiveNotification")
        #else
        let name = Notification.Name("UIApplicationWillEnterForegroundNotification")
        #endif
        return AsyncStream { continuation in
            let observer = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in continuation.yield() }
            let token = ObserverToken(observer)
            continuation.onTermination = { _ in NotificationCenter.default.removeObserver(token.observer) }
        }
    }

    /// The observer, carried into the termination handler.
    private final class ObserverToken: @unchecked Sendable {
        // Unchecked: only handed to `removeObserver`, once.
        let observer: any NSObjectProtocol
        init(_ observer: any NSObjectProtocol) { self.observer = observer }
    }
}
#endif
