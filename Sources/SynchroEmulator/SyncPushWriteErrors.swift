/// How the emulator's protocol-2 push answers a write the database refuses.
public enum SyncPushWriteErrors: Sendable {
    /// The whole push is rolled back and answered 500 `{"error":"internal error"}`, mutations
    /// already applied in the batch included: what Synchro 0.3.0 does (an SQL error inside
    /// its push aborts the transaction).
    case rollBackBatch
    /// Only that mutation is refused, `rejected_terminal` / `validation_failed`, with the
    /// database's message; the rest of the batch goes on.
    case rejectMutation
}
