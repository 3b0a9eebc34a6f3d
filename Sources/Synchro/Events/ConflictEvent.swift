import SelfDBRuntime

/// A local change the server refused because its own version won; the server's version has
/// replaced the local row.
public struct ConflictEvent: Sendable {
    /// The synced table.
    public var table: String
    /// The record's primary key.
    public var recordID: String
    /// The row as this client sent it (nil for a delete).
    public var clientData: [String: JSONValue]?
    /// The row as the server holds it (nil when the server sent none).
    public var serverData: [String: JSONValue]?

    /// Creates an event.
    public init(table: String, recordID: String, clientData: [String: JSONValue]?, serverData: [String: JSONValue]?) {
        self.table = table
        self.recordID = recordID
        self.clientData = clientData
        self.serverData = serverData
    }
}
