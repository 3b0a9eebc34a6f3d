import SynchroEmulator

extension SelfDBEmulator.StartError {
    /// Why the sync server could not start, as the emulator reports it.
    init(_ error: SyncStartError) {
        switch error {
        case .specInvalid(let diagnostics): self = .syncSpecInvalid(diagnostics)
        case .configurationInvalid(let reason): self = .syncConfigurationInvalid(reason)
        }
    }
}
