import EmulatorSupport
import GRDB

/// The `UPDATE … SET` of a PATCH: one assignment per field the client sent with a value.
///
/// SelfDB's admin services drop fields sent as null like fields not sent
/// (`{k: v … if v is not None}`), so `nil` assigns nothing; nothing assigned means no write at
/// all (not even `updated_at`).
struct PartialUpdate {
    private(set) var assignments: [String] = []
    private(set) var arguments: StatementArguments = []

    var isEmpty: Bool { assignments.isEmpty }

    /// `column = value` when `value` is not nil.
    mutating func set(_ column: String, _ value: (any DatabaseValueConvertible & Sendable)?) {
        guard let value else { return }
        assignments.append("\(SQLIdentifier.quote(column)) = ?")
        arguments += [value]
    }

    /// An assignment written in SQL (`version = version + 1`).
    mutating func set(sql assignment: String) {
        assignments.append(assignment)
    }

    /// The statement for row `id` of `table`, stamping `updated_at` with `now`.
    func statement(table: String, id: String, now: String) -> Statement {
        Statement(sql: "UPDATE \(table) SET \((assignments + ["updated_at = ?"]).joined(separator: ", ")) WHERE id = ?", arguments: arguments + [now, id])
    }

    /// SQL and arguments, ready to cross into a database closure.
    struct Statement: Sendable {
        let sql: String
        let arguments: StatementArguments
    }
}
