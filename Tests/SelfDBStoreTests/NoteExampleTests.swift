import Foundation
import SelfDBStore
import Testing

/// The SQLiteZero note's example, as written there. Adapted only where needed: the module is
/// `SelfDBStore`, and the backup goes to a unique temporary file so parallel runs do not
/// share one.
@Test func example() throws {

    let path = ":memory:"  //or "/path/to/database.sqlite"

    //Open or create a database at path with the default options
    let db = try SQLite(path)

    //Use executeScript to execute more than one statement. Scripts don't take any arguments.
    try db.executeScript(
        """
            create table person (
                id integer primary key,
                name text not null,
                height real not null,
                is_friend bool not null default false,
                meta blob
            );

            insert into person (id, name, height, is_friend, meta) values
            (1, 'Noa', 1.77, true, cast('{"lastSeen": "2024-11-05"}' as blob)),
            (2, 'Mia', 1.66, false, null),
            (3, 'Ada', 1.63, true, cast('{"lastSeen": "2024-10-16"}' as blob))
        """
    )

    let sql = "select * from person where height > ? order by name"

    for row in try db.execute(sql, 1.65) {
        #expect(["Noa", "Mia"].contains(row["name"]))
    }

    let statement = try db.execute(sql, 1.65)
    while let row = try statement.nextRow() {
        #expect(["Noa", "Mia"].contains(row["name"]))
    }

    let allRows = try db.execute(sql, 1.65).all()
    #expect(allRows.count == 2)

    #expect(try db.execute("select 1 + 1").one()[0] == 2)

    let prepared = try db.prepare(sql)
    for height in [1.50, 1.60, 1.70] {
        try prepared.execute(height)
        while let row = try prepared.nextRow() {
            #expect(row["height"]! > height)
        }
    }

    try db.execute(
        """
            insert into person(id, name, height) values
            ($id, $name, $height)
        """,
        ["$id": 4, "$name": "Xan", "$height": 1.78]
    )

    for row in try db.execute("select * from person") {
        let id: Int64 = row[0]!
        let idStr = row[0]! as String
        #expect(id == Int64(idStr))

        let name: String = row["name"]!
        let nameData = row["name"]! as Data
        #expect(name == String(data: nameData, encoding: .utf8))

        let heightInt = row["height"] as Int?
        // because none of our example heights is exactly representable as Int:
        #expect(heightInt == nil)

        let isFriend: Bool = row["is_friend"]!
        #expect(["Ada", "Noa"].contains(row["name"]) ? isFriend : !isFriend)

        if let note: Data = row["note"] {
            if let dict = try JSONSerialization.jsonObject(with: note) as? [String: Any?] {
                #expect(dict["lastSeen"] != nil)
            } else {
                throw Err.unexpected("Expected a Dictionary<String, Any>")
            }

            #expect((row["note"]! as String).hasPrefix(#"{"lastSeen":"#))
        }
    }

    let insert = try db.prepare("insert into person (id, name, height) values (?, ?, 1.68)")
    let countName = try db.prepare("select count(*) from person where name = ?")

    try db.transaction {
        try insert.execute(5, "Liv")
        #expect(try countName.execute("Liv").one()[0] == 1)

        #expect(throws: Err.self) {
            try db.transaction {
                try insert.execute(6, "Ari")
                #expect(try countName.execute("Ari").one()[0] == 1)
                throw Err.testing("Oh no!")
            }
        }

        #expect(try countName.execute("Ari").one()[0] == 0)
    }
    #expect(try countName.execute("Liv").one()[0] == 1)

    let source = try SQLite()
    try source.executeScript(
        """
            create table backup_test (
                id integer primary key,
                data text
            );

            insert into backup_test(id, data) values
            (1, 'abc'),
            (2, 'xyz');
        """
    )

    let destinationPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("backup-\(UUID().uuidString).db")
        .path(percentEncoded: false)
    defer { try? FileManager.default.removeItem(atPath: destinationPath) }

    let destination = try SQLite(destinationPath)
    let maxRetries = 10

    try source.backup(to: destination) { remaining, total, retries in
        if retries > maxRetries {
            return false
        }
        return true
    }

    #expect(try destination.execute("select count(*) from backup_test").one()[0] == 2)
}

enum Err: Error {
    case unexpected(String)
    case testing(String)
}
