@_exported import CachedData
import Dependencies

/// `@Dependency(\.caHandlers)`: the handlers of the configured cache (`CAHandlers.shared`),
/// in the app and in its tests alike (the cache is a local file, so tests can use the real
/// thing: configure a temporary file, or override with
/// `withDependencies { $0.caHandlers = CAHandlers(cache: …) }`).
private enum CAHandlersKey: DependencyKey {
    static var liveValue: CAHandlers { .shared }
    static var testValue: CAHandlers { .shared }
}

extension DependencyValues {
    /// CachedData's mutation handlers.
    public var caHandlers: CAHandlers {
        get { self[CAHandlersKey.self] }
        set { self[CAHandlersKey.self] = newValue }
    }
}
