import CachedData
import CachedDataTestSupport
import Foundation
import Testing

@Suite("where the cache lives")
struct ConfigurationTests {
    @Test func theDefaultFileIsPerUserAndPerApp() {
        let path = CachedData.defaultDatabasePath
        #expect(path.hasPrefix("/"))
        // The folder is named after the app: on Apple platforms its bundle identifier when
        // there is one (the test runner's, here, if it has one), otherwise the process name;
        // on Linux always the process name.
        #if canImport(Darwin)
        let app = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        #else
        let app = ProcessInfo.processInfo.processName
        #endif
        #expect(path.hasSuffix("/\(app)/CachedData/cache.sqlite"))
        #if os(Linux)
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? home + "/.local/share"
        #expect(path.hasPrefix(data))
        #endif
    }

    @Test func aFileThatCannotBeOpenedIsATypedError() throws {
        let folder = try temporaryFolder()
        let missing = folder.appendingPathComponent("no/such/folder/cache.sqlite").path
        #expect(throws: CAFetchError.self) { try CACache(databasePath: missing) }
        let notACache = folder.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x5A, count: 4096).write(to: notACache)
        do {
            _ = try CACache(databasePath: notACache.path)
            Issue.record("a file that is not SQLite must be refused")
        } catch {
            guard case .storage = error else { throw error }
            #expect(error.userFriendlyMessage == "The data saved on this device could not be accessed.")
        }
        #expect(try Data(contentsOf: notACache) == Data(repeating: 0x5A, count: 4096), "the file is left as it was")
    }
}
