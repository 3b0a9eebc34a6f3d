/// SelfDB's limits on paging and search arguments, checked before a request is sent so a bad
/// value fails with a clear error instead of a server round trip.
public enum QueryArguments {
    /// Largest page size SelfDB accepts.
    public static let maxPageSize = 1000
    /// Longest search text SelfDB accepts.
    public static let maxSearchLength = 100

    /// Throws `invalidArgument` for a page below 1, a page size outside 1–1000, or a search text
    /// over 100 characters or outside printable ASCII.
    public static func validate(page: Int?, pageSize: Int?, search: String?) throws(SelfDBError) {
        if let page, page < 1 {
            throw .invalidArgument("page must be 1 or more, got \(page)")
        }
        if let size = pageSize, !(1...maxPageSize).contains(size) {
            throw .invalidArgument("page size must be from 1 to \(maxPageSize), got \(size)")
        }
        if let text = search {
            if text.count > maxSearchLength {
                throw .invalidArgument("search text must be at most \(maxSearchLength) characters, got \(text.count)")
            }
            if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E }) {
                throw .invalidArgument("search text must be printable ASCII")
            }
        }
    }
}
