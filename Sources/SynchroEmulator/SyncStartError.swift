import SelfDBSpec

/// Why the sync server cannot start; the emulator reports it as the matching case of its
/// `SelfDBEmulator.StartError`.
package enum SyncStartError: Error {
    /// A sync spec has errors: every diagnostic of every spec, warnings included.
    case specInvalid([Diagnostic])
    /// The sync options do not fit together (no synced table, a table two specs declare, a
    /// minimum app version that is not a version...).
    case configurationInvalid(String)
}
