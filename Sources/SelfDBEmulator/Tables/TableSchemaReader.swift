import EmulatorSupport

/// Reads a `table_schema` (`{"col": {"type", "nullable", "default"}}`) into columns.
enum TableSchemaReader {
    /// The columns, or the problem as pydantic would word a `field_validator` failure.
    static func columns(from schema: JSONObject) -> Result<(schema: JSONObject, columns: [ColumnDefinition]), ValidationIssue> {
        func problem(_ message: String) -> Result<(schema: JSONObject, columns: [ColumnDefinition]), ValidationIssue> {
            .failure(.valueError(.body, "table_schema", message: message, input: .object(schema)))
        }
        guard !schema.isEmpty else { return problem("Schema cannot be empty") }
        // SelfDB fails with a 500 on a JSON Schema here; say what shape it wants instead.
        if schema["type"]?.stringValue != nil || schema["properties"]?.objectValue != nil {
            return problem(
                "table_schema maps column names to definitions such as {\"title\": {\"type\": \"text\"}}; a JSON Schema is not accepted"
            )
        }
        var columns: [ColumnDefinition] = []
        var cleaned = JSONObject()
        for (rawName, definition) in schema {
            // SelfDB strips whitespace around column names.
            let name = rawName.trimmingSpaces
            guard SQLIdentifier.isValidColumnName(name) else {
                return problem("Invalid column name '\(rawName)': use letters, digits and underscores, starting with a letter or underscore")
            }
            guard !columns.contains(where: { $0.name == name }) else {
                return problem("Duplicate column name '\(name)'")
            }
            guard let object = definition.objectValue else {
                return problem("Column '\(name)' must be an object such as {\"type\": \"text\"}")
            }
            let typeValue = object["type"] ?? .string("text")
            guard let type = typeValue.stringValue, let parsed = ColumnKind.parse(type) else {
                return problem("Column '\(name)' has an invalid type")
            }
            // A type Postgres does not know makes SelfDB fail with a 500 at CREATE TABLE.
            guard parsed.kind != .other else {
                return problem("Column '\(name)' has an unknown type '\(type)'")
            }
            let nullableValue = object["nullable"] ?? .bool(true)
            guard let nullable = nullableValue.boolValue else {
                return problem("Column '\(name)': nullable must be a boolean")
            }
            columns.append(
                ColumnDefinition(
                    name: name,
                    type: type,
                    kind: parsed.kind,
                    length: parsed.length,
                    nullable: nullable,
                    sqlDefault: nil
                )
            )
            cleaned[name] = definition
        }
        return .success((cleaned, columns))
    }
}
