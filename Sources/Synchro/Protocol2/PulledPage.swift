import Foundation
import SelfDBRuntime

/// A pull or rebuild page as it came from the server: its head, read at once, and its body,
/// decoded whole afterwards (``decoded()``).
///
/// The head is every member but the rows (`changes` of a pull page, `records` of a rebuild
/// page): the cursors, `has_more`, scope moves and checksums, which is all the next page's
/// request is made from. Reading it steps over the rows (``JSONValue/parseObject(_:omitting:)``),
/// a small part of decoding them, so the next page is asked for before this one is decoded:
/// the server works on it while the client decodes and writes this one, where it used to wait
/// for the decoding (a third of each page's round trip, with pages of 1,000 rows on loopback).
struct PulledPage<Page: Decodable & Sendable>: Sendable {
    /// The page without its rows (the rows member is empty).
    let head: Page
    private let body: Data
    private let request: APIRequest
    private let api: APIClient
    /// The page decoded whole already (when the head could not be read alone).
    private let whole: Page?

    /// Sends `request` to `path` (as the generated ``SynchroV2API/Sync`` does: a POST with a
    /// bearer token, safe to repeat) and reads the head of the answer, leaving out `rows`.
    static func fetch(_ request: some Encodable, to path: String, rows: String, with api: APIClient) async throws -> Self {
        let sent = APIRequest(method: .post, path: path, auth: .bearer, idempotent: true, body: try api.json(request))
        let body = try await api.sendForBytes(sent)
        guard case .object(var members)? = try? JSONValue.parseObject(body, omitting: [rows]) else {
            // Not JSON, or not an object: decoding the whole says why, in the client's words.
            let page = try api.decode(Page.self, from: body, answering: sent)
            return Self(head: page, body: body, request: sent, api: api, whole: page)
        }
        // An answer without its rows is refused by ``decoded()``, which reads the body itself.
        members[rows] = .array([])
        let head = try api.decode(Page.self, fromParsed: .object(members), answering: sent)
        return Self(head: head, body: body, request: sent, api: api, whole: nil)
    }

    /// The whole page, its rows decoded.
    func decoded() throws -> Page {
        if let whole { return whole }
        return try api.decode(Page.self, from: body, answering: request)
    }
}

extension PulledPage where Page == ScopedPullResponse {
    /// `POST /sync/pull`, its head read first.
    static func pull(_ request: ScopedPullRequest, with api: APIClient) async throws -> Self {
        try await fetch(request, to: "/sync/pull", rows: "changes", with: api)
    }
}

extension PulledPage where Page == RebuildResponse {
    /// `POST /sync/rebuild`, its head read first.
    static func rebuild(_ request: RebuildRequest, with api: APIClient) async throws -> Self {
        try await fetch(request, to: "/sync/rebuild", rows: "records", with: api)
    }
}
