/// The cache's tables. Items are keyed by (type, id), so types never collide; a view is an
/// ordered list of item ids, and one item is shared by all its views.
enum CacheSchema {
    static func migrate(_ db: CacheDatabase.Access) throws {
        try db.executeScript(
            """
            CREATE TABLE IF NOT EXISTS cache_items (
                type_name TEXT NOT NULL, item_id TEXT NOT NULL, json TEXT NOT NULL,
                state TEXT NOT NULL DEFAULT 'normal', updated_at REAL NOT NULL,
                PRIMARY KEY (type_name, item_id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS cache_view_items (
                type_name TEXT NOT NULL, view_id TEXT NOT NULL, item_id TEXT NOT NULL, position REAL NOT NULL,
                PRIMARY KEY (type_name, view_id, item_id)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS cache_view_order ON cache_view_items (type_name, view_id, position);
            CREATE INDEX IF NOT EXISTS cache_item_views ON cache_view_items (type_name, item_id);
            CREATE TABLE IF NOT EXISTS cache_views (
                type_name TEXT NOT NULL, view_id TEXT NOT NULL, next_page INTEGER NOT NULL, has_next INTEGER NOT NULL,
                last_used REAL NOT NULL, PRIMARY KEY (type_name, view_id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS cache_mutations (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, type_name TEXT NOT NULL, item_id TEXT NOT NULL,
                kind TEXT NOT NULL, json TEXT NOT NULL, previous_json TEXT, previous_state TEXT,
                previous_places TEXT NOT NULL, attempted INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS cache_mutation_items ON cache_mutations (type_name, item_id, seq);
            CREATE TABLE IF NOT EXISTS cache_uploads (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, upload_id TEXT NOT NULL UNIQUE, bucket_id TEXT NOT NULL,
                bucket_name TEXT NOT NULL, filename TEXT NOT NULL, path TEXT NOT NULL, content_type TEXT,
                size INTEGER NOT NULL, local_file TEXT NOT NULL, attempted INTEGER NOT NULL DEFAULT 0,
                attempt_started REAL, state TEXT NOT NULL DEFAULT 'pending', file_id TEXT, stored_path TEXT,
                reason TEXT, created_at REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS cache_uploads_pending ON cache_uploads (seq) WHERE state = 'pending';
            """
        )
        // Added with cursor paging; files written before get the column here.
        if try db.value(Int.self, sql: "SELECT count(*) FROM pragma_table_info('cache_views') WHERE name = 'next_cursor'") == 0 {
            try db.executeScript("ALTER TABLE cache_views ADD COLUMN next_cursor TEXT")
        }
    }
}
