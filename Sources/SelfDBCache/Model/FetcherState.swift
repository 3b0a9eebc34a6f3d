/// A fetcher's activity, for loading indicators.
public enum FetcherState: Sendable, Hashable {
    /// Not set up yet.
    case initializing
    /// Fetching the first page with nothing to show yet.
    case loadingFirst
    /// Not loading.
    case idle
    /// Fetching a further page, or refreshing what is shown.
    case loading
}
