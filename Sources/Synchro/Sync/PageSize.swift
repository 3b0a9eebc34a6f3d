/// The page size of one run of pull or rebuild pages: it starts at the configured size and
/// grows while the server answers full pages quickly, up to the protocol's 1,000; a slow page
/// halves it, down to the configured size.
///
/// A page of 100 rows costs a round trip whatever its size, and a sync of 10,000 rows is a
/// hundred of them; doubling after each quick full page reaches 1,000 rows a page in four
/// steps. A server that slows down under the larger pages (or a slow network) gets smaller
/// ones again. A failed page fails its cycle, and the next cycle starts from the configured
/// size. The run's first page is the configured size, so a cycle with little to pull asks
/// exactly what it asked before; only the pull after a push whose batches grew starts at their
/// size, as it brings back at least what was pushed.
struct PageSize: Sendable {
    /// A page answered within this grows the next one.
    static let quick: Duration = .milliseconds(250)
    /// A page answered after this shrinks the next one.
    static let slow: Duration = .seconds(2)
    /// The protocol's largest page (larger limits are clamped by the server).
    static let maximum = 1_000

    private let configured: Int
    /// The size of the next page.
    private(set) var current: Int

    /// `startingAt`: the size of a run's first page when it is not the configured one (the
    /// pull after a push that grew its batches), within the configured size and the maximum.
    init(configured: Int, startingAt first: Int? = nil) {
        self.configured = SynchroConfig.clamped(configured)
        current = min(Self.maximum, max(self.configured, first ?? self.configured))
    }

    /// Takes in how a page went: its size asked, how long the server took, and whether more
    /// pages follow. Only a page that came back with more to come can tell that a larger one
    /// would have saved a round trip.
    ///
    /// A page of at least half the current size counts: pushes keep two batches on the wire,
    /// so the second is cut before the first one's answer doubles the size, and its own quick
    /// answer is the next step. Counting only pages of the current size made the batches grow
    /// every third answer (100, 100, 100, 200, 200, 200, …: eighteen pushes for 10,000 rows,
    /// where fourteen do).
    mutating func record(asked: Int, took elapsed: Duration, hasMore: Bool) {
        if elapsed > Self.slow {
            current = max(configured, current / 2)
        } else if hasMore, elapsed <= Self.quick, asked * 2 >= current {
            current = min(Self.maximum, max(current, current * 2))
        }
    }
}
