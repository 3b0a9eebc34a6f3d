/// Whole-row last-write-wins with a clock-skew tolerance, as Synchro's server resolves an
/// update (or a resurrecting create) against the row it holds.
///
/// With `client' = client_updated_at + tolerance` and `server = the row's updated_at`:
/// - with a base: `base > server` → server (the client claims a version the server never
///   had); `base == server` → client (nothing changed since the client read the row);
///   `base < server` → client iff `client' > server`;
/// - without a base: client iff `client' > server`.
///
/// All instants are whole milliseconds, so "equal" is exact.
enum ConflictRule {
    enum Winner: Sendable, Equatable {
        case client, server
    }

    static func resolve(
        server: SyncTimestamp,
        client: SyncTimestamp,
        base: SyncTimestamp?,
        toleranceMilliseconds: Int64
    ) -> (winner: Winner, reason: String) {
        let adjusted = client.adding(milliseconds: toleranceMilliseconds)
        if let base {
            if base > server {
                return (.server, "client base version is ahead of the server version")
            }
            if base == server {
                return (.client, "server unchanged since the base version")
            }
        }
        if adjusted > server {
            return (.client, "client timestamp is newer")
        }
        return (.server, "server version is newer")
    }
}
