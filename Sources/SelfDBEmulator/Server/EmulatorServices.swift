import Foundation
import SynchroEmulator

/// Everything a route handler needs, shared by all requests of one running emulator.
final class EmulatorServices: Sendable {
    let configuration: SelfDBEmulator.Configuration
    let database: EmulatorDatabase
    let jwt: JSONWebToken
    let passwords: PasswordHasher
    let controls: TestControls
    let realtime: RealtimeHub
    let blobs: BlobStore
    /// Where backup archives are listed from (`backups/` in the data directory).
    let backups: BackupDirectory
    /// The Synchro sync server; nil when no sync spec is configured.
    let synchro: SynchroServer?

    init(
        configuration: SelfDBEmulator.Configuration,
        database: EmulatorDatabase,
        jwt: JSONWebToken,
        controls: TestControls,
        realtime: RealtimeHub,
        blobs: BlobStore,
        backups: BackupDirectory,
        synchro: SynchroServer? = nil
    ) {
        self.configuration = configuration
        self.database = database
        self.jwt = jwt
        self.passwords = PasswordHasher(iterations: configuration.passwordHashIterations)
        self.controls = controls
        self.realtime = realtime
        self.blobs = blobs
        self.backups = backups
        self.synchro = synchro
    }

    var authenticator: Authenticator { Authenticator(services: self) }
    var sessions: SessionStore { SessionStore(services: self) }
}
