import Foundation

/// Keeps the session in a JSON file readable by the current user only, so a command-line tool
/// or a server-side app stays signed in across launches. (On Apple platforms an app would
/// rather implement `TokenStore` on the Keychain.)
public actor FileTokenStore: TokenStore {
    private let url: URL
    private var cached: StoredSession??

    /// A store at `url`; the file is created on the first save.
    public init(url: URL) {
        self.url = url
    }

    public func load() -> StoredSession? {
        if let cached { return cached }
        let session = (try? Data(contentsOf: url)).flatMap { try? JSONCoding.makeDecoder().decode(StoredSession.self, from: $0) }
        cached = .some(session)
        return session
    }

    public func save(_ session: StoredSession?) {
        cached = .some(session)
        guard let session else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let data = try? JSONCoding.makeEncoder().encode(session) else { return }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Written with owner-only permissions from the start: the tokens are credentials.
        if FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) == false {
            try? data.write(to: url, options: .atomic)
        }
    }
}
