import CachedData
import CachedDataTestSupport
import Foundation

// The app run the CachedData crash test kills: offline, it makes three mutations through the
// shared handlers, says so, and waits to be killed with SIGKILL.
// Arguments: the cache file, the memo server's name, the ids of memos to insert, update, delete.
let arguments = CommandLine.arguments
guard arguments.count == 6 else {
    FileHandle.standardError.write(Data("usage: cacheddata-crash-helper <cache> <server> <insert-id> <update-id> <delete-id>\n".utf8))
    exit(2)
}
let (path, serverName, insertID, updateID, deleteID) = (arguments[1], arguments[2], arguments[3], arguments[4], arguments[5])

do {
    try CachedData.configure(databasePath: path)
    // The server exists but cannot be reached from this run.
    let server = MemoServer(name: serverName)
    server.offline = true
    let fetcher = CAFetcher(.fetchAll(viewId: "memos", allPages: false), itemType: Memo.self, params: Memo.Params(server: serverName))
    do {
        try await fetcher.setup()
    } catch {
        guard case .offline = error else { throw error }
    }
    guard var updated = fetcher.items.first(where: { $0.id == updateID }), let deleted = fetcher.items.first(where: { $0.id == deleteID }) else {
        FileHandle.standardError.write(Data("the cache does not hold memos \(updateID) and \(deleteID)\n".utf8))
        exit(1)
    }
    updated.text = "edited offline"
    let handlers = CAHandlers.shared
    try await handlers.insert(server.memo(insertID, "written offline"), action: .action(.prepend, viewId: "memos"))
    try await handlers.update(updated, action: .action(.refresh))
    try await handlers.delete(deleted)
    let pending = try CachedData.pendingMutationCount()
    FileHandle.standardOutput.write(Data("PENDING \(pending)\n".utf8))
    while true { try await Task.sleep(for: .seconds(60)) }
} catch {
    FileHandle.standardError.write(Data("crash helper failed: \(error)\n".utf8))
    exit(1)
}
