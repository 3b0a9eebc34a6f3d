import Foundation
import Logging

/// `SELFDB_LOG=debug` (or trace, info...) prints what the SDK does during the demo, through
/// swift-log's stream handler on standard error; unset, the SDK stays silent.
enum DemoLogger {
    static let logger: Logger? = {
        guard let text = ProcessInfo.processInfo.environment["SELFDB_LOG"], let level = Logger.Level(rawValue: text.lowercased()) else { return nil }
        var logger = Logger(label: "selfdb.demo", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }()

    /// The demo's logger, or the SDK's silent default.
    static var orSilent: Logger { logger ?? .selfdbDisabled }
}
