import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// The Synchro v0.1 sync server inside the emulator: `/sync/*` and `/healthz` on the same
/// port as SelfDB, for the tables of the configured sync specs.
///
/// It has its own authentication (bearer JWTs, no `X-API-Key`), its own error shapes and
/// its own SQLite file, so the SelfDB side needs to know nothing about it beyond routing.
///
/// What is `package` is what the emulator that mounts it reaches: the start, the routing and
/// the state its in-process test hooks (`SelfDBEmulator+Synchro.swift`) read and write.
package final class SynchroServer: Sendable {
    package let schema: SyncSchema
    /// Grows each time the emulator starts with a schema of a new hash.
    package let schemaVersion: Int64
    package let store: SynchroStore
    let authenticator: SyncAuthenticator
    let minimumAppVersion: AppVersion?
    let toleranceMilliseconds: Int64
    private let maximumBodySize: Int
    private let pendingFailures = Locked<[SyncPushFailure]>([])
    /// Set when the emulator speaks protocol 2: it answers `/sync/*` instead of protocol 1.
    package let protocolTwo: ProtocolTwoServer?

    /// Reads and checks the configured sync specs; nil when none are configured (the
    /// sync server is then off and `/sync/*` is SelfDB's 404).
    package static func schema(for configuration: SyncServerConfiguration) throws(SyncStartError) -> SyncSchema? {
        guard !configuration.specs.isEmpty else { return nil }
        if let minimum = configuration.minimumAppVersion, AppVersion(minimum) == nil {
            throw .configurationInvalid("the minimum app version '\(minimum)' is not a semantic version")
        }
        if let tolerance = configuration.clockSkewTolerance, tolerance < 0 || !tolerance.isFinite {
            throw .configurationInvalid("the clock-skew tolerance must be a non-negative number of seconds")
        }
        return try SyncSchema.load(configuration.specs, protocol: configuration.syncProtocol)
    }

    /// `verifyAccessToken` is the emulator's own check of its access tokens, so an app signs
    /// in with SelfDB and syncs with the same token.
    package init(
        schema: SyncSchema,
        configuration: SyncServerConfiguration,
        directory: URL,
        verifyAccessToken: @escaping SyncAuthenticator.AccessTokenVerifier
    ) throws {
        self.schema = schema
        store = try SynchroStore(
            path: directory.appendingPathComponent("synchro.sqlite").path,
            schema: schema,
            ownerIndexes: configuration.syncProtocol == .one
        )
        schemaVersion = try store.schemaVersion(for: schema.hash)
        authenticator = SyncAuthenticator(
            verifyEmulatorToken: verifyAccessToken,
            externalSecret: configuration.jwtSecret.map { Array($0.utf8) }
        )
        minimumAppVersion = configuration.minimumAppVersion.flatMap(AppVersion.init)
        let defaultTolerance: TimeInterval = configuration.syncProtocol == .two ? 0.5 : 5
        toleranceMilliseconds = Int64(((configuration.clockSkewTolerance ?? defaultTolerance) * 1000).rounded())
        maximumBodySize = configuration.maximumBodySize
        protocolTwo =
            configuration.syncProtocol == .two
            ? try ProtocolTwoServer(
                schema: schema,
                pool: store.pool,
                toleranceMilliseconds: toleranceMilliseconds,
                writeErrors: configuration.pushWriteErrors
            ) : nil
    }

    package func close() {
        try? store.pool.close()
    }

    // MARK: - HTTP

    package func handles(path: String) -> Bool {
        SyncEndpoint.owns(path)
    }

    /// Answers one request on a sync path: `fault` if the emulator's tests injected one for
    /// it (the emulator keeps the list of injected faults and takes this one), else the
    /// endpoint. Never throws: every failure becomes a Synchro error body.
    package func respond(to request: Request, path: String, fault: SyncFaultResponse.Fault?) async -> Response {
        if let fault {
            await Self.discard(request.body)
            return SyncFaultResponse.response(for: fault)
        }
        do {
            return try await route(request, path: path)
        } catch let error as SyncError {
            return error.response
        } catch {
            return SyncError.internalError.response
        }
    }

    private func route(_ request: Request, path: String) async throws -> Response {
        if let protocolTwo {
            return try await routeProtocolTwo(protocolTwo, request, path: path)
        }
        let endpoint: SyncEndpoint
        do {
            endpoint = try SyncEndpoint(method: request.method, path: path)
        } catch {
            await Self.discard(request.body)
            throw error
        }
        let bytes = try await collectBody(request.body)
        if endpoint == .health {
            return .json(["status": "ok"])
        }
        guard let user = authenticator.userID(bearer: Self.bearerToken(request.headers)) else {
            throw SyncError.unauthorized
        }
        try checkAppVersion(request.headers[.appVersion], missingIsAllowed: true)
        let context = SyncRequestContext(server: self, user: user)
        switch endpoint {
        case .health, .schema:
            return SchemaRoutes.schema(context)
        case .tables:
            return SchemaRoutes.tables(context)
        case .register:
            return try await RegisterRoute.handle(try SyncBody(bytes), context)
        case .pull:
            return try await PullRoute.handle(try SyncBody(bytes), context)
        case .push:
            return try await PushRoute.handle(try SyncBody(bytes), context)
        case .snapshot:
            return try await SnapshotRoute.handle(try SyncBody(bytes), context)
        }
    }

    /// 426 when a minimum is configured and `version` is below it or not a version. A
    /// missing header passes (as with Synchro's own middleware), so tools such as curl
    /// work without one; registration still checks the body's `app_version`.
    func checkAppVersion(_ version: String?, missingIsAllowed: Bool) throws(SyncError) {
        guard let minimumAppVersion else { return }
        guard let version else {
            if missingIsAllowed { return }
            throw .upgradeRequired
        }
        guard let parsed = AppVersion(version), parsed >= minimumAppVersion else { throw .upgradeRequired }
    }

    // MARK: - Test hooks

    package func injectPushFailure(_ failure: SyncPushFailure, count: Int) {
        guard count > 0 else { return }
        pendingFailures.withLock { $0 += Array(repeating: failure, count: count) }
    }

    /// Removes the first pending failure of this kind; whether there was one.
    @Sendable func takePushFailure(_ kind: SyncPushFailure) -> Bool {
        pendingFailures.withLock { pending in
            guard let index = pending.firstIndex(of: kind) else { return false }
            pending.remove(at: index)
            return true
        }
    }

    // MARK: - Plumbing

    private static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let value = headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The whole body, at most the emulator's JSON limit; a larger one is read to its end
    /// (so the client gets the 413 rather than a reset) and refused.
    func collectBody(_ body: RequestBody) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var tooLarge = false
        for try await chunk in body {
            if tooLarge { continue }
            if bytes.count + chunk.readableBytes > maximumBodySize {
                tooLarge = true
                bytes = []
                continue
            }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        if tooLarge { throw SyncError.tooLarge(limit: maximumBodySize) }
        return bytes
    }

    static func discard(_ body: RequestBody) async {
        do {
            for try await _ in body {}
        } catch {
            // Nothing to answer about a body we are discarding.
        }
    }
}
