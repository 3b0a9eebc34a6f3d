import Foundation

/// Which views `SelfDBCache.evict(_:)` drops. Views with a live fetcher and items with
/// a pending mutation are never evicted.
public struct EvictionPolicy: Sendable, Hashable {
    /// Keep at most this many views per type that are not in use (the most recently used).
    public var maximumIdleViews: Int
    /// Drop views not used for longer than this.
    public var maximumAge: TimeInterval

    /// Creates a policy.
    public init(maximumIdleViews: Int = 50, maximumAge: TimeInterval = 7 * 24 * 60 * 60) {
        self.maximumIdleViews = maximumIdleViews
        self.maximumAge = maximumAge
    }
}
