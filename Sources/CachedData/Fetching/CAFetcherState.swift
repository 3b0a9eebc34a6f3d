/// A fetcher's loading activity, for loading indicators.
public enum CAFetcherState: Int, Sendable, Hashable, Comparable {
    /// `setup()` was not called yet.
    case initializing
    /// The first network load of a view with nothing cached.
    case loadingFirst
    /// Not loading.
    case idle
    /// A later load: the next page, or a refresh of what is shown.
    case loading

    /// Orders the states as declared (`initializing < loadingFirst < idle < loading`), so
    /// `state >= .idle` means the first load is over.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
