import EmulatorSupport
import Hummingbird

/// An injected fault on a sync path, in Synchro's shape: `{"error": ..., "retry_after": N}`
/// with a `Retry-After` header. 429 and 503 always carry a delay (5 s unless the fault
/// names one) because Synchro clients wait exactly as long as they are told.
package enum SyncFaultResponse {
    /// What the emulator's `InjectedFault` holds: its status, `Retry-After` seconds and text.
    package typealias Fault = (status: Int, retryAfter: Int?, detail: String)

    static let defaultRetryAfter = 5

    static func response(for fault: Fault) -> Response {
        let retryAfter = fault.retryAfter ?? ((fault.status == 429 || fault.status == 503) ? defaultRetryAfter : nil)
        var body = JSONObject([("error", .string(fault.detail))])
        var headers: HTTPFields = [:]
        if let retryAfter {
            body["retry_after"] = .int(Int64(retryAfter))
            headers[.retryAfter] = String(retryAfter)
        }
        return SyncError(status: HTTPResponse.Status(code: fault.status), body: .object(body), headers: headers).response
    }
}
