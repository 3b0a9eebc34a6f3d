/// One request the emulator answered, as seen by ``SelfDBEmulator/recordedRequests()``.
public struct RecordedRequest: Sendable, Equatable, CustomStringConvertible {
    /// Upper-case HTTP method, e.g. `POST`.
    public var method: String
    /// The path without the query string, exactly as sent (e.g. `/users/token/refresh`).
    public var path: String
    /// The raw query string without `?`, or nil.
    public var query: String?
    /// The status code the emulator answered with (including injected faults).
    public var status: Int

    /// A log entry; the emulator creates these, tests usually only read them.
    public init(method: String, path: String, query: String?, status: Int) {
        self.method = method
        self.path = path
        self.query = query
        self.status = status
    }

    public var description: String {
        "\(method) \(path)\(query.map { "?\($0)" } ?? "") -> \(status)"
    }
}
