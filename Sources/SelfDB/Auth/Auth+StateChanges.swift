import Foundation
import SelfDBRuntime

extension SelfDB.Auth {
    /// The signed-in state as it changes, for as long as the stream is iterated: the stored
    /// session first, then every sign-in, token refresh, update of the signed-in user and
    /// sign-out (with its reason: asked by the app, refresh refused, every session revoked, or
    /// signed out by another process sharing the store) once, in order.
    ///
    /// ```swift
    /// for await change in selfdb.auth.stateChanges {
    ///     switch change {
    ///     case .initialSession(let session): showSignIn(session == nil)
    ///     case .signedIn, .tokenRefreshed: showSignIn(false)
    ///     case .userUpdated(let record): profile = record.user
    ///     case .signedOut(let reason): showSignIn(true, because: reason)
    ///     }
    /// }
    /// ```
    ///
    /// Changes another process makes to a shared `FileTokenStore` arrive too (it looks at the
    /// file twice a second while a stream is open); the Keychain store cannot tell them.
    public var stateChanges: AsyncStream<AuthChange> { api.authChanges }
}

extension SessionUserRecord {
    /// The record as SelfDB's user (a `.userUpdated` change carries one).
    public var user: UserRead? { try? decode(as: UserRead.self) }
}
