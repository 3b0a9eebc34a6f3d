import Foundation
import Logging
import SelfDB
import SelfDBRuntime
import SelfDBTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request cancelled by its task. URLSession reports it as `URLError(.cancelled)` (on Apple
/// platforms always), which the client used to take for an unreachable server: logged at error
/// level, retried, and thrown as `connectionError`.
@Suite("cancellation")
struct CancellationTests {
    @Test("a cancelled request throws CancellationError, is not retried, and logs no error", .timeLimit(.minutes(1)))
    func cancelledRequestIsCancellation() async throws {
        let listener = try SilentListener()
        let lines = LogLines()
        let selfdb = SelfDB(
            baseURL: listener.baseURL,
            apiKey: "key",
            retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01),
            logger: .capturing(lines)
        )
        let request = Task { try await selfdb.tables.list() }
        // The request is out, waiting on a server that never answers.
        try await Task.sleep(for: .milliseconds(300))
        request.cancel()
        let outcome = await request.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let trace = lines.all
        #expect(!trace.contains { $0.contains("could not be reached") }, "\(trace)")
        #expect(!trace.contains { $0.contains("retrying") }, "\(trace)")
        #expect(trace.contains { $0.contains("GET /tables/ cancelled") }, "\(trace)")
    }

    @Test func urlErrorCancelledIsCancellation() {
        #expect(APIClient.isCancellation(URLError(.cancelled)))
        #expect(APIClient.isCancellation(CancellationError()))
        #expect(!APIClient.isCancellation(URLError(.cannotConnectToHost)))
    }
}
