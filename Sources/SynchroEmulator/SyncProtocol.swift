/// Which Synchro protocol the emulator's `/sync/*` speaks.
public enum SyncProtocol: Int, Sendable, CaseIterable {
    /// Synchro 0.1 (`shared/contracts/synchro.md`): register, pull by one checkpoint, push,
    /// snapshot.
    case one = 1
    /// Synchro 0.3 (`shared/contracts/synchro-v2.md`): connect, per-scope signed cursors,
    /// pull pages with checksums, push with mutation ids, rebuild per scope.
    case two = 2
}
