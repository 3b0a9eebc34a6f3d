import Logging

extension Logger {
    /// A logger that drops everything: the default of every SelfDB component, so nothing is
    /// printed unless the app passes a logger of its own (`Logger(label: "selfdb")` after
    /// `LoggingSystem.bootstrap`, or any `Logger`).
    ///
    /// What the components log never includes a token, a password, an API key, a request or
    /// response body, or a query string: methods, paths, statuses, durations, counts, topics.
    public static var selfdbDisabled: Logger {
        Logger(label: "selfdb", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
