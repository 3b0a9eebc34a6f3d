/// Why ``ProtocolTwoServer/operatorWrite(_:values:)`` refused a row; the emulator's
/// `writeSyncedRow` hook reports it as `SelfDBEmulator.SyncHookError.invalidRow`.
package enum OperatorWriteError: Error {
    /// The row cannot be written; why.
    case invalidRow(String)
}
