import Testing

/// Every CRDT test, one at a time. They are synchronous SQLite work that holds a thread of the
/// cooperative pool while it runs; on a 2-core machine, several at once would stall the
/// suite's socket and timeout tests for seconds.
@Suite(.serialized) enum CRDTSuite {}
