import Foundation

/// What the drift check reads of an OpenAPI 3.x document (JSON): its operations, with their
/// parameters, request body and JSON responses, and its component schemas.
public struct OpenAPIDocument: Sendable {
    /// An operation by method and path, path parameters' names left out (`/tables/{}`), so
    /// that a spec naming `{id}` what the server names `{table_id}` still finds it.
    public struct Key: Hashable, Sendable, Comparable {
        /// The HTTP method, upper case.
        public var method: String
        /// The path with `{}` for each path parameter.
        public var path: String

        /// The key of `method` on `path` (either case; parameter names dropped).
        public init(method: String, path: String) {
            self.method = method.uppercased()
            self.path = path.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
        }

        /// By path, then method: the order operations are listed in.
        public static func < (lhs: Key, rhs: Key) -> Bool { (lhs.path, lhs.method) < (rhs.path, rhs.method) }
    }

    /// One operation of the document.
    public struct Operation: Sendable {
        /// The HTTP method, upper case.
        public var method: String
        /// The path as the document writes it.
        public var path: String
        /// Its `operationId`, when it has one.
        public var operationID: String?
        /// Its parameters, the path item's shared ones first.
        public var parameters: [Parameter]
        /// The schema of its JSON body, when it takes one.
        public var requestBody: Schema?
        /// The schema of its `multipart/form-data` body, when it takes one (a file upload).
        public var formBody: Schema?
        /// JSON response schemas by status (`nil`: the status has no JSON body).
        public var responses: [Int: Schema?]
    }

    /// One parameter of an operation.
    public struct Parameter: Sendable {
        /// The parameter's name.
        public var name: String
        /// `path`, `query`, `header` or `cookie`.
        public var location: String
        /// Whether the server requires it (path parameters always).
        public var required: Bool
        /// Its value's schema.
        public var schema: Schema
    }

    /// Every operation, by method and path.
    public var operations: [Key: Operation]
    /// The component schemas, by name.
    public var schemas: [String: Schema]

    /// Why a document cannot be read.
    public struct Unreadable: Error, CustomStringConvertible, Sendable {
        /// What is wrong with it.
        public var description: String
    }

    /// Reads a document; throws ``Unreadable`` when it is not an OpenAPI 3 document in JSON.
    public init(json data: Data) throws {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Unreadable(description: "not a JSON object")
        }
        guard let version = root["openapi"] as? String, version.hasPrefix("3.") else {
            throw Unreadable(description: "not an OpenAPI 3 document (no 'openapi: 3.x')")
        }
        let components = (root["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        schemas = components.compactMapValues { ($0 as? [String: Any]).map(Schema.init) }
        var operations: [Key: Operation] = [:]
        for (path, item) in root["paths"] as? [String: Any] ?? [:] {
            guard let item = item as? [String: Any] else { continue }
            let shared = item["parameters"] as? [[String: Any]] ?? []
            for method in ["get", "put", "post", "delete", "patch", "head"] {
                guard let operation = item[method] as? [String: Any] else { continue }
                let parameters = (shared + (operation["parameters"] as? [[String: Any]] ?? [])).compactMap(Parameter.init)
                let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                let body = content.flatMap(Self.jsonSchema)
                let form = ((content?["multipart/form-data"] as? [String: Any])?["schema"] as? [String: Any]).map(Schema.init)
                var responses: [Int: Schema?] = [:]
                for (status, response) in operation["responses"] as? [String: Any] ?? [:] {
                    guard let code = Int(status) else { continue }
                    responses[code] = ((response as? [String: Any])?["content"] as? [String: Any]).flatMap(Self.jsonSchema)
                }
                let key = Key(method: method, path: path)
                operations[key] = Operation(
                    method: method.uppercased(),
                    path: path,
                    operationID: operation["operationId"] as? String,
                    parameters: parameters,
                    requestBody: body,
                    formBody: form,
                    responses: responses
                )
            }
        }
        self.operations = operations
    }

    private static func jsonSchema(_ content: [String: Any]) -> Schema? {
        guard let media = content["application/json"] as? [String: Any], let schema = media["schema"] as? [String: Any] else { return nil }
        return Schema(schema)
    }

    /// `schema` with a reference followed (once per call; a chain of references too).
    public func resolved(_ schema: Schema) -> Schema {
        var current = schema
        for _ in 0..<16 {
            guard case .reference(let name) = current, let target = schemas[name] else { return current }
            current = target
        }
        return current
    }
}

extension OpenAPIDocument.Parameter {
    init?(_ object: [String: Any]) {
        guard let name = object["name"] as? String, let location = object["in"] as? String else { return nil }
        self.name = name
        self.location = location
        required = object["required"] as? Bool ?? (location == "path")
        schema = (object["schema"] as? [String: Any]).map(Schema.init) ?? .any
    }
}
