// The Synchro server is a target of its own (SynchroEmulator), an implementation detail of this
// product. Its few public types are the ones this module's sync options and test hooks name
// (`SyncProtocol`, `SyncPushWriteErrors`, `SyncPushFailure`, `SyncedRow`, `SyncSchemaInfo`):
// they live with the server that uses them (protocol 2's push reads `SyncPushWriteErrors`,
// `SyncedRow` is made from a stored row) rather than as copies here with a mapping, and are
// re-exported so that `import SelfDBEmulator` alone keeps offering them under their names.
// Everything else SynchroEmulator has is `package`, which a re-export does not make visible.
@_exported import SynchroEmulator
