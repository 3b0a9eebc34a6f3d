import Logging
import SelfDBRuntime

/// Every line logged, as "level message metadata".
public final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    public init() {}
    public var all: [String] { lines.withLock { $0 } }
    public func append(_ line: String) { lines.withLock { $0.append(line) } }
}

public struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(lines: LogLines) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        let merged = self.metadata.merging(metadata ?? [:]) { $1 }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.append("\(level) \(message) \(rendered)")
    }
}

extension Logger {
    /// A logger at trace level whose lines go to `lines`.
    public static func capturing(_ lines: LogLines) -> Logger {
        var logger = Logger(label: "selfdb.test", factory: { _ in CapturingLogHandler(lines: lines) })
        logger.logLevel = .trace
        return logger
    }
}
