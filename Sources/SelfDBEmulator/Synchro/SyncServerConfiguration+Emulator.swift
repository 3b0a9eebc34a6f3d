import SynchroEmulator

extension SyncServerConfiguration {
    /// The sync options of an emulator's configuration, with its JSON body limit.
    init(_ configuration: SelfDBEmulator.Configuration) {
        self.init(
            specs: configuration.syncSpecs,
            jwtSecret: configuration.syncJWTSecret,
            minimumAppVersion: configuration.syncMinimumAppVersion,
            clockSkewTolerance: configuration.syncClockSkewTolerance,
            syncProtocol: configuration.syncProtocol,
            pushWriteErrors: configuration.syncPushWriteErrors,
            maximumBodySize: configuration.maximumJSONBodySize
        )
    }
}
