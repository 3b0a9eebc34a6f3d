import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// `/schema/tables` and `/schema/visualization`: the database's tables, for an admin.
///
/// The real server reads PostgreSQL's catalog: SelfDB's own tables, with their columns and
/// foreign keys, and the app's tables, whose columns it lists by name with their PostgreSQL
/// types, no default (a `table_schema` default is stored, not applied) and no key (SelfDB adds
/// none). The emulator answers the same from the captured system tables
/// (``SelfDBSystemSchema``) and its registry of app tables. Anyone else: 401 without a user,
/// 403 for a user who is not an admin, with the real server's words.
enum SchemaRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/schema/tables", tables)
        table.add(.get, "/schema/visualization", visualization)
    }

    static func tables(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.schema.require(request, services)
        let (nodes, _) = try await schema(services)
        return .json(.array(nodes.compactMap { $0.objectValue?["id"] }))
    }

    static func visualization(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.schema.require(request, services)
        let (nodes, edges) = try await schema(services)
        return .json(.object(JSONObject([("nodes", .array(nodes)), ("edges", .array(edges))])))
    }

    /// SelfDB's own nodes and edges, read once (``SelfDBSystemSchema``).
    private static let system: (nodes: [JSONValue], edges: [JSONValue])? = {
        guard case .object(let system) = try? JSONParser.parse(SelfDBSystemSchema.json),
            case .array(let nodes) = system["nodes"] ?? .null, case .array(let edges) = system["edges"] ?? .null
        else { return nil }
        return (nodes, edges)
    }()

    /// Every table's node, by name, and the foreign keys.
    private static func schema(_ services: EmulatorServices) async throws -> (nodes: [JSONValue], edges: [JSONValue]) {
        guard let (systemNodes, edges) = system else { throw APIError.badRequest("the emulator's system schema does not read") }
        let apps = try await services.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM _selfdb_tables").map(TableRecord.init)
        }
        var nodes = systemNodes
        for table in apps {
            let columns = table.columns.sorted { $0.name < $1.name }.map { column -> JSONValue in
                .object(
                    JSONObject([
                        ("column_name", .string(column.name)),
                        // A raw type passes through as PostgreSQL spells it back (lower case).
                        ("data_type", .string(column.kind == .other ? column.type.lowercased() : column.kind.postgresName)),
                        ("column_default", column.sqlDefault.map(JSONValue.string) ?? .null),
                        ("is_primary_key", .bool(false)),
                    ])
                )
            }
            nodes.append(
                .object(JSONObject([("id", .string(table.name)), ("label", .string(table.name)), ("columns", .array(columns)), ("primary_keys", .array([]))]))
            )
        }
        nodes.sort { ($0.objectValue?["id"]?.stringValue ?? "") < ($1.objectValue?["id"]?.stringValue ?? "") }
        return (nodes, edges)
    }
}
