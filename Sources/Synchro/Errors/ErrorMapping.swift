import Foundation
import GRDB
import SelfDBRuntime

/// How a failure of a cycle step is reported and whether the cycle is tried again.
enum FailureKind {
    /// Try again after the server's delay (or the backoff when nil).
    case retryable(retryAfter: TimeInterval?)
    /// The server's schema changed: re-fetch it, migrate, and go on.
    case schemaChanged
    /// This client is not registered (any more): register and go on.
    case unregistered
    /// Give up and report.
    case fatal
}

extension SynchroError {
    /// The error a failure of a sync step is reported as.
    static func from(_ error: any Error, appVersion: String) -> SynchroError {
        switch error {
        case let error as SynchroError:
            return error
        case let error as SelfDBError:
            switch error {
            case .connectionError(let underlying): return .networkError(underlying: underlying)
            case .upgradeRequired(let message):
                return .upgradeRequired(currentVersion: appVersion, minimumVersion: minimumVersion(in: message) ?? "unknown")
            case .invalidResponse(let message): return .invalidResponse(message: message)
            default: return .serverError(status: error.status ?? 0, message: error.detail)
            }
        case let error as DatabaseError:
            return .databaseError(underlying: error)
        case let error as DecodingError:
            return .invalidResponse(message: "\(error)")
        default:
            return .networkError(underlying: error)
        }
    }

    /// A version number the server may name in its 426 text ("minimum 1.2.0").
    private static func minimumVersion(in message: String) -> String? {
        message.split(whereSeparator: { !($0.isNumber || $0 == ".") }).first { $0.contains(".") }.map(String.init)
    }
}

extension FailureKind {
    var isSchemaChange: Bool {
        if case .schemaChanged = self { return true }
        return false
    }

    /// A push the server failed as a whole (500): Synchro 0.3.0's answer to a batch in which one
    /// mutation's write fails in its database.
    static func isBatchRollback(_ error: any Error) -> Bool {
        if case SelfDBError.internalServerError = error { return true }
        return false
    }

    init(_ error: any Error) {
        switch error {
        case let error as SelfDBError:
            switch error {
            case .connectionError: self = .retryable(retryAfter: nil)
            case .rateLimited(let retryAfter, _), .serviceUnavailable(let retryAfter, _): self = .retryable(retryAfter: retryAfter)
            case .conflict: self = .schemaChanged
            case .notFound: self = .unregistered
            // Protocol 2: the schema mismatch is 422, a client the server forgot (or compaction
            // deactivated) is 400 "client is not registered".
            case .unexpectedStatus(422, _), .validationFailed: self = .schemaChanged
            case .badRequest(let message) where message.contains("client is not registered"): self = .unregistered
            default: self = .fatal
            }
        case is URLError: self = .retryable(retryAfter: nil)
        default: self = .fatal
        }
    }
}
