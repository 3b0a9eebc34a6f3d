import Foundation
import Testing

@testable import SelfDBEmulator

/// Who may do what, as a real SelfDB v0.0.5 decides it: one row per cell of the matrix
/// (anonymous / owner / another user / admin × private table, public table, table without
/// `user_id`, private and public bucket, files, users), each with what the real server
/// answered when the same request was sent to it.
///
/// The rule it pins: "private" means "any signed-in user" (only anonymous callers are
/// refused) for reading a table, its rows, inserting a row, and reading, listing, uploading to
/// and downloading from a bucket. Changing or deleting a table, a column, a bucket or a file
/// stays with the owner (or an admin); changing a row needs `user_id` = the caller (404
/// otherwise, 400 without a `user_id` column), the admin excepted; the counts count only public
/// and own objects although the lists show every one.
///
/// Every cell acts on fresh objects made by the owner, so no cell depends on another.
@Suite("Authorization matrix")
struct AuthorizationMatrixTests {
    /// Who sends the request.
    enum Caller: String, Sendable, CaseIterable {
        case anonymous
        case owner
        case other = "another user"
        case admin
    }

    /// What the cell acts on; made fresh by the owner for every cell.
    enum Subject: String, Sendable {
        case privateTable = "private table"
        case publicTable = "public table"
        case plainTable = "private table without user_id"
        case privateBucket = "private bucket"
        case publicBucket = "public bucket"
        case privateFile = "file in a private bucket"
        case publicFile = "file in a public bucket"
        /// A user account; its "owner" is the user themself.
        case user = "a user"
    }

    /// The request of a cell.
    enum Action: String, Sendable {
        // Tables and rows
        case getTable = "GET the table"
        case getRows = "GET its rows"
        case searchRows = "search its rows"
        case insertRow = "insert a row"
        case updateRow = "update the owner's row"
        case deleteRow = "delete the owner's row"
        case updateTable = "change the table"
        case addColumn = "add a column"
        case updateColumn = "change a column"
        case deleteColumn = "delete a column"
        case deleteTable = "delete the table"
        case listTables = "GET /tables/"
        case countTables = "GET /tables/count"
        // Buckets
        case getBucket = "GET the bucket"
        case listFiles = "list its files"
        case upload = "upload a file"
        case updateBucket = "change the bucket"
        case deleteBucket = "delete the bucket"
        case listBuckets = "GET /storage/buckets/"
        case countBuckets = "GET /storage/buckets/count"
        // Files
        case getFile = "GET the file's metadata"
        case download = "download the file"
        case updateFile = "change the file's metadata"
        case deleteFile = "delete the file"
        // Users
        case listUsers = "GET /users/"
        case getUser = "GET the user"
        case me = "GET /users/me"
        case countUsers = "GET /users/count"
        case updateUser = "change the user"
        case deleteUser = "delete the user"
        case createUser = "sign up a new user"
    }

    /// What the real server answered: a status, or whether a list or count includes the subject.
    enum Answer: Sendable, Equatable, CustomStringConvertible {
        case status(Int)
        case included
        case excluded

        var description: String {
            switch self {
            case .status(let code): "\(code)"
            case .included: "included"
            case .excluded: "left out"
            }
        }
    }

    /// One cell of the matrix.
    struct Cell: Sendable {
        var subject: Subject
        var action: Action
        var caller: Caller
        var answer: Answer

        init(_ subject: Subject, _ action: Action, _ caller: Caller, _ answer: Answer) {
            self.subject = subject
            self.action = action
            self.caller = caller
            self.answer = answer
        }

        init(_ subject: Subject, _ action: Action, _ caller: Caller, _ status: Int) {
            self.init(subject, action, caller, .status(status))
        }

        var name: String { "\(subject.rawValue) · \(action.rawValue) · \(caller.rawValue)" }
    }

    static var cells: [Cell] { tableCells + storageCells + userCells }

    @Test func everyCellAnswersAsSelfDBDoes() async throws {
        try await withEmulator { _, client in
            let world = try await MatrixWorld(client: client)
            for (index, cell) in Self.cells.enumerated() {
                let answer = try await world.perform(cell, number: index)
                #expect(answer == cell.answer, "\(cell.name): expected \(cell.answer), got \(answer)")
            }
        }
    }

    /// The table covers every caller for every subject and action it lists, once.
    @Test func theMatrixIsComplete() {
        // 13 table actions × 3 tables, 7 bucket actions × 2 buckets, 4 file actions × 2, 7 user actions; × 4 callers.
        #expect(Self.cells.count == (13 * 3 + 7 * 2 + 4 * 2 + 7) * 4)
        var seen: [String: Set<Caller>] = [:]
        for cell in Self.cells {
            let key = "\(cell.subject.rawValue) · \(cell.action.rawValue)"
            #expect(seen[key, default: []].insert(cell.caller).inserted, "\(cell.name) appears twice")
        }
        for (key, callers) in seen {
            #expect(callers == Set(Caller.allCases), "\(key) lacks \(Set(Caller.allCases).subtracting(callers).map(\.rawValue))")
        }
    }
}
