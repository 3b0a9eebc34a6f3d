#if canImport(Security)
import Foundation
import Security

/// Keeps the session in the Keychain: the default store of `SelfDB` on Apple platforms, so an
/// app stays signed in across launches.
///
/// One generic-password item (`kSecClassGenericPassword`) per service and account, readable
/// after the device's first unlock (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so a
/// background refresh works while the device is locked, and never restored onto another device
/// from a backup. With an `accessGroup` (a `keychain-access-groups` entitlement the app and its
/// extensions share), they all read the same session; give them a `lockDirectory` in their
/// app-group container too, and their refreshes take turns under a file lock there, as
/// ``FileTokenStore``'s do. The data protection keychain is used on macOS as well
/// (`kSecUseDataProtectionKeychain`).
///
/// The Keychain can refuse a process (a command-line tool without the entitlements, say): the
/// store then keeps the session in memory for the life of the process, so signing in still
/// works, unpersisted.
public actor KeychainTokenStore: TokenStore {
    private let service: String
    private let account: String
    private let accessGroup: String?
    private let lock: FileLock?
    /// The session last read or written; what serves when the Keychain refuses this process.
    private var cached: StoredSession??

    /// A store of the item `service`/`account` (by default one per server: pass its URL as
    /// `account`), shared by the processes of `accessGroup` when given, which take turns to
    /// refresh under a lock file in `lockDirectory` when given.
    public init(service: String = "selfdb-session", account: String, accessGroup: String? = nil, lockDirectory: URL? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.lock = lockDirectory.map { FileLock(url: $0.appendingPathComponent("selfdb-session-\(Self.safeName(service, account)).lock")) }
    }

    public func load() -> StoredSession? {
        if let cached { return cached }
        return reload()
    }

    public func reload() -> StoredSession? {
        var query = baseQuery()
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            let session = (result as? Data).flatMap { try? JSONCoding.makeDecoder().decode(StoredSession.self, from: $0) }
            cached = .some(session)
            return session
        case errSecItemNotFound:
            cached = .some(nil)
            return nil
        default:
            // The Keychain refused this process: what this process stored last serves.
            return cached ?? nil
        }
    }

    public func save(_ session: StoredSession?) {
        cached = .some(session)
        guard let session else {
            SecItemDelete(baseQuery() as CFDictionary)
            return
        }
        guard let data = try? JSONCoding.makeEncoder().encode(session) else { return }
        let update: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(baseQuery() as CFDictionary, update as CFDictionary)
        guard status == errSecItemNotFound else { return }
        var item = baseQuery()
        item.merge(update) { _, new in new }
        SecItemAdd(item as CFDictionary, nil)
    }

    public nonisolated func withRefreshLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        guard let lock else { return try await body() }
        return try await lock.withLock(body)
    }

    /// The query naming the item.
    private func baseQuery() -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private static func safeName(_ parts: String...) -> String {
        String(parts.joined(separator: "-").unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
    }
}
#endif
