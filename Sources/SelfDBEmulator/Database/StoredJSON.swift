import EmulatorSupport

/// JSON kept as text in the emulator's SQLite file (PostgreSQL's `JSONB` columns).
enum StoredJSON {
    static func decode(_ text: String?) -> JSONValue? {
        guard let text else { return nil }
        return try? JSONParser.parse(text)
    }

    static func encode(_ value: JSONValue?) -> String? {
        value.map(JSONWriter.string)
    }
}
