/// One table as a SelfDB server describes it (`TableRead` of `GET /tables/`): what
/// introspection reads of it.
public struct ServerTable: Hashable, Sendable, Decodable {
    /// The SQL table name.
    public var name: String
    /// `table_schema`: column name → its type, nullability and stored default. SelfDB keeps no
    /// column order (responses may reorder the keys), so ``columns`` sorts them.
    public var schema: [String: ServerColumn]
    /// Whether anonymous users may read it.
    public var isPublic: Bool
    /// Whether SelfDB broadcasts its changes.
    public var realtimeEnabled: Bool
    /// The description the table was created with.
    public var description: String?

    /// Creates a table description (tests, fixtures).
    public init(name: String, schema: [String: ServerColumn], isPublic: Bool = false, realtimeEnabled: Bool = false, description: String? = nil) {
        self.name = name
        self.schema = schema
        self.isPublic = isPublic
        self.realtimeEnabled = realtimeEnabled
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case name, description
        case schema = "table_schema"
        case isPublic = "public"
        case realtimeEnabled = "realtime_enabled"
    }

    /// Decodes SelfDB's JSON; a missing optional key takes SelfDB's default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        schema = try container.decode([String: ServerColumn].self, forKey: .schema)
        isPublic = try container.decodeIfPresent(Bool.self, forKey: .isPublic) ?? false
        realtimeEnabled = try container.decodeIfPresent(Bool.self, forKey: .realtimeEnabled) ?? false
        description = try container.decodeIfPresent(String.self, forKey: .description)
    }

    /// The columns in a stable order: `id` first, then by name.
    public var columns: [(name: String, column: ServerColumn)] {
        schema.sorted { lhs, rhs in
            if (lhs.key == "id") != (rhs.key == "id") { return lhs.key == "id" }
            return lhs.key < rhs.key
        }.map { ($0.key, $0.value) }
    }
}

/// One column of `table_schema`.
public struct ServerColumn: Hashable, Sendable, Decodable {
    /// The type as stored: one of SelfDB's names, or raw SQL it passed through.
    public var type: String
    /// SelfDB's default is nullable.
    public var nullable: Bool
    /// The stored default, as JSON; `nil` when none.
    public var defaultValue: ServerDefault?

    /// Creates a column description.
    public init(type: String, nullable: Bool = true, defaultValue: ServerDefault? = nil) {
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
    }

    enum CodingKeys: String, CodingKey {
        case type, nullable
        case defaultValue = "default"
    }

    /// Decodes SelfDB's JSON; a missing optional key takes SelfDB's default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        nullable = try container.decodeIfPresent(Bool.self, forKey: .nullable) ?? true
        defaultValue = try container.decodeIfPresent(ServerDefault.self, forKey: .defaultValue)
    }
}

/// A stored default: SelfDB keeps whatever JSON the table was created with.
public enum ServerDefault: Hashable, Sendable, Decodable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// An array or object: no spec literal stands for it.
    case structured

    /// Decodes SelfDB's JSON; a missing optional key takes SelfDB's default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .structured
        }
    }
}
