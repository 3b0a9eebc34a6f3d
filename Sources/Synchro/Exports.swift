// Synchro re-exports nothing. The note's examples name GRDB's `Database`, `Row` and fetching
// methods, and the official client asks its users to `import GRDB` for them; re-exporting GRDB
// would put its `Table`, `Column` and `Row` beside SwiftUI's `Table` in every file that imports
// Synchro and SwiftUI, and make each of those names ambiguous. `JSONValue` (a conflict's data)
// comes with `import SelfDBRuntime`.
