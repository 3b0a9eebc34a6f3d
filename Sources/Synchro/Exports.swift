// The note's examples use GRDB's `Row`, `Database` and fetching methods with nothing but
// `import Synchro`, and events carry the runtime's `JSONValue`.
@_exported import GRDB
@_exported import SelfDBRuntime
