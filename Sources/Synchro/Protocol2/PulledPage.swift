import Foundation
import SelfDBRuntime

/// A pull or rebuild page as it came from the server: its head, read at once, and its body,
/// decoded whole afterwards (``decoded()``).
///
/// The head is every member but the rows (``PageOfRows/rowsMember``: `changes` of a pull page,
/// `records` of a rebuild page): the cursors, `has_more`, scope moves and checksums, which is all the next page's
/// request is made from. Reading it steps over the rows (``JSONValue/parseObject(_:omitting:)``),
/// a small part of decoding them, so the next page is asked for before this one is decoded:
/// the server works on it while the client decodes and writes this one, where it used to wait
/// for the decoding (a third of each page's round trip, with pages of 1,000 rows on loopback).
struct PulledPage<Page: PageOfRows>: Sendable {
    /// The page without its rows (the rows member is empty).
    let head: Page
    private let body: Data
    private let request: APIRequest
    private let api: APIClient
    /// The page decoded whole already (when the head could not be read alone).
    private let whole: Page?

    /// Sends `request` to `path` (as the generated ``SynchroV2API/Sync`` does: a POST with a
    /// bearer token, safe to repeat) and reads the head of the answer, leaving out its rows.
    static func fetch(_ request: some Encodable, to path: String, with api: APIClient) async throws -> Self {
        let rows = Page.rowsMember
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

    /// The whole page, its rows decoded: read from the parsed body by ``TreeReading`` onto the
    /// head, or, where they cannot be, the whole body decoded through `Codable` (which says what
    /// is wrong).
    func decoded() throws -> Page {
        if let whole { return whole }
        if case .object(let members)? = try? JSONValue.parse(body), let page = head.with(rowsFrom: members[Page.rowsMember]) {
            return page
        }
        return try api.decode(Page.self, from: body, answering: request)
    }
}

/// A page whose rows are read apart from the rest (``PulledPage``).
protocol PageOfRows: Decodable, Sendable {
    /// The member that holds the rows.
    static var rowsMember: String { get }
    /// This page with the rows in `value` (the parsed member), read by ``TreeReading``; nil
    /// where they need the general decoding.
    func with(rowsFrom value: JSONValue?) -> Self?
}

extension ScopedPullResponse: PageOfRows {
    static var rowsMember: String { "changes" }

    func with(rowsFrom value: JSONValue?) -> Self? {
        guard let changes = TreeReading.array(value, ChangeRecord.init(tree:)) else { return nil }
        var page = self
        page.changes = changes
        return page
    }
}

extension RebuildResponse: PageOfRows {
    static var rowsMember: String { "records" }

    func with(rowsFrom value: JSONValue?) -> Self? {
        guard let records = TreeReading.array(value, RebuildRecord.init(tree:)) else { return nil }
        var page = self
        page.records = records
        return page
    }
}

extension PulledPage where Page == ScopedPullResponse {
    /// `POST /sync/pull`, its head read first.
    static func pull(_ request: ScopedPullRequest, with api: APIClient) async throws -> Self {
        try await fetch(request, to: "/sync/pull", with: api)
    }
}

extension PulledPage where Page == RebuildResponse {
    /// `POST /sync/rebuild`, its head read first.
    static func rebuild(_ request: RebuildRequest, with api: APIClient) async throws -> Self {
        try await fetch(request, to: "/sync/rebuild", with: api)
    }
}
