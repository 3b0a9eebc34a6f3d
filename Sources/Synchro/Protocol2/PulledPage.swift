import Foundation
import SelfDBRuntime

/// A pull page as it came from the server: its head, read at once, and its body, decoded whole
/// afterwards (``decoded()``).
///
/// The head is every member but `changes`: the cursors, scope moves, rebuilds, `has_more` and
/// checksums, which is all the next page's request is made from. Reading it steps over the
/// rows (``JSONValue/parseObject(_:omitting:)``), a small part of decoding them, so the next
/// page is asked for before this one is decoded: the server works on it while the client
/// decodes and applies this one, where it used to wait for the decoding (a third of each
/// page's round trip, with pages of 1,000 rows on loopback).
struct PulledPage: Sendable {
    /// The page without its changes (`changes` is empty).
    let head: ScopedPullResponse
    private let body: Data
    private let request: APIRequest
    private let api: APIClient
    /// The page decoded whole already (when the head could not be read alone).
    private let whole: ScopedPullResponse?

    /// Sends `request` (`POST /sync/pull`, as ``SynchroV2API/Sync/pull(_:)`` does) and reads the
    /// head of the answer.
    static func fetch(_ request: ScopedPullRequest, with api: APIClient) async throws -> PulledPage {
        let sent = APIRequest(method: .post, path: "/sync/pull", auth: .bearer, idempotent: true, body: try api.json(request))
        let body = try await api.sendForBytes(sent)
        guard case .object(var members)? = try? JSONValue.parseObject(body, omitting: ["changes"]) else {
            // Not JSON, or not an object: decoding the whole says why, in the client's words.
            let page = try api.decode(ScopedPullResponse.self, from: body, answering: sent)
            return PulledPage(head: page, body: body, request: sent, api: api, whole: page)
        }
        // An answer without `changes` is refused by ``decoded()``, which reads the body itself.
        members["changes"] = .array([])
        let head = try api.decode(ScopedPullResponse.self, fromParsed: .object(members), answering: sent)
        return PulledPage(head: head, body: body, request: sent, api: api, whole: nil)
    }

    /// The whole page, its changes decoded.
    func decoded() throws -> ScopedPullResponse {
        if let whole { return whole }
        return try api.decode(ScopedPullResponse.self, from: body, answering: request)
    }
}
