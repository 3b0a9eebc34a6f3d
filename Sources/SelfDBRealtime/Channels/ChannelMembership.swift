import Foundation

/// What the server holds of one topic on the current socket, as the client knows it: a small
/// state machine with one join or leave on the wire at a time.
///
/// Phoenix answers a second join of a topic the socket has joined by closing the first
/// channel, and ends a left channel with a `phx_close` too; both come after the reply to the
/// join or leave. With the V2 serializer those closes carry the `join_ref` of the channel they
/// end, which tells them from the current one. V1 frames (SelfDB's) carry none: a close with
/// no ref is taken for one of the channels this client ended itself (``strayCloses``) while any
/// is owed, and only then for the current join.
struct ChannelMembership {
    enum Phase: Equatable {
        /// Not joined (or the join was refused, or the channel closed).
        case left
        /// A `phx_join` is on the wire.
        case joining
        /// The server accepted the join.
        case joined
        /// A `phx_leave` is on the wire.
        case leaving
    }

    var phase: Phase = .left
    /// The ref of the join the server holds or is answering.
    var joinRef: String?
    /// The join or leave on the wire; its callers wait for it.
    var operation: Task<Void, any Error>?
    /// Closes with no ref still to come for channels this client ended (a leave, a join sent
    /// again after a join whose answer never came).
    var strayCloses = 0
    /// Channels the server ended (`phx_error`, `phx_close`) since the channel last delivered
    /// an event: the step of the rejoin's backoff, so a channel that fails at once does not
    /// make a join storm.
    var serverEnds = 0

    /// Not joined, and nothing on the wire; the closes still owed and the server's ends are
    /// kept.
    mutating func markLeft() {
        phase = .left
        joinRef = nil
        operation = nil
    }

    /// Whether a `phx_close` (`isClose`) or `phx_error` with `ref` ends the channel the server
    /// holds now. A close with no ref pays off an owed stray first; an error is never owed.
    mutating func endsCurrentChannel(ref: String?, isClose: Bool) -> Bool {
        if let ref { return ref == joinRef && (phase == .joined || phase == .joining) }
        if isClose, strayCloses > 0 {
            strayCloses -= 1
            return false
        }
        // A channel ends only after its join was answered.
        return phase == .joined
    }
}
