/// The three row changes realtime reports.
enum ChangeKind: String, Sendable {
    case insert = "INSERT"
    case update = "UPDATE"
    case delete = "DELETE"
}
