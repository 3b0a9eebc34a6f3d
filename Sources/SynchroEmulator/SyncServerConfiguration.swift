import Foundation

/// How to run the sync server: the `sync…` options of `SelfDBEmulator.Configuration` (where
/// each is documented) and the emulator's JSON body limit, handed over when it starts.
package struct SyncServerConfiguration: Sendable {
    package var specs: [URL]
    package var jwtSecret: String?
    package var minimumAppVersion: String?
    package var clockSkewTolerance: TimeInterval?
    package var syncProtocol: SyncProtocol
    package var pushWriteErrors: SyncPushWriteErrors
    /// Largest request body accepted before answering 413.
    package var maximumBodySize: Int

    package init(
        specs: [URL],
        jwtSecret: String?,
        minimumAppVersion: String?,
        clockSkewTolerance: TimeInterval?,
        syncProtocol: SyncProtocol,
        pushWriteErrors: SyncPushWriteErrors,
        maximumBodySize: Int
    ) {
        self.specs = specs
        self.jwtSecret = jwtSecret
        self.minimumAppVersion = minimumAppVersion
        self.clockSkewTolerance = clockSkewTolerance
        self.syncProtocol = syncProtocol
        self.pushWriteErrors = pushWriteErrors
        self.maximumBodySize = maximumBodySize
    }
}
