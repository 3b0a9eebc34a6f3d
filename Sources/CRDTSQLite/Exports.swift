// The note's examples use the sqlite3 C API on `prepare`'s statements (sqlite3_bind_*,
// sqlite3_step, sqlite3_finalize) and `SQLiteValue`: importing CRDTSQLite brings both.
@_exported import GRDBSQLite
@_exported import SelfDBStore
