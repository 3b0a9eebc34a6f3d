import CRDTSQLite
import Foundation

// Writes tracked rows to the CRDT database at the given path, one transaction at a time,
// printing "committed N" after each commit, until it is killed. The crash test SIGKILLs it
// mid-stream and checks that every committed row has its metadata.
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: crdt-crash-writer DATABASE\n".utf8))
    exit(2)
}
do {
    let db = try CRDTSQLite<Int64>(path: CommandLine.arguments[1], nodeId: 7)
    try db.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, label TEXT, n INTEGER)")
    try db.enableCRDT(for: "events")
    let insert = try db.connection.prepare("INSERT INTO events (label, n) VALUES (?, ?)")
    let update = try db.connection.prepare("UPDATE events SET n = n + 1 WHERE id = ?")
    var batch = 0
    while true {
        batch += 1
        try db.connection.transaction {
            for item in 0..<20 {
                try insert.execute("batch \(batch) item \(item)", item)
            }
            try update.execute(db.connection.lastInsertRowID)
        }
        // Unbuffered: the test must see each line as soon as the commit returned.
        FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("crdt-crash-writer: \(error)\n".utf8))
    exit(1)
}
