import SelfDBSpec

/// Compares a spec's endpoints and models with a server's OpenAPI document.
///
/// - An endpoint the server does not serve (method and path, path parameters by position):
///   error. An operation the server has that the spec lacks: note (a spec may cover a part).
/// - A path or query parameter the server does not take, or takes elsewhere or of another
///   type: error; one the server requires and the spec leaves optional: warning.
/// - The models the spec decodes responses into, and encodes bodies from, against the
///   schemas the server names for them, field by field, through nested models: a field the
///   server does not have, or of another type, or null where the spec says it never is:
///   error; a field the server has that the spec lacks, or optional in the spec where the
///   server always sends it: warning. Enum cases the server does not know: error.
/// - A declaration with `drift: "why"` (an endpoint, a parameter, a field) turns its
///   differences into notes that say why: the spec says the difference is intended.
public struct DriftChecker {
    let spec: Spec
    let document: OpenAPIDocument
    var findings: [DriftFinding] = []
    /// Model/schema pairs already compared (a model used by many endpoints is compared once).
    var compared: Set<String> = []

    /// Every difference between `spec` and `document`, in no particular order.
    public static func check(_ spec: Spec, against document: OpenAPIDocument) -> [DriftFinding] {
        var checker = DriftChecker(spec: spec, document: document)
        checker.run()
        return checker.findings
    }

    mutating func run() {
        var covered: Set<OpenAPIDocument.Key> = []
        for endpoint in spec.endpoints {
            let key = OpenAPIDocument.Key(method: endpoint.method.value.rawValue, path: endpoint.path.value)
            guard let operation = document.operations[key] else {
                report(
                    .error,
                    "\(endpoint.method.value.rawValue) \(endpoint.path.value) ('\(endpoint.name.value)') is not an operation of the server",
                    at: endpoint.path.location,
                    declared: endpoint.driftReason
                )
                continue
            }
            covered.insert(key)
            checkParameters(of: endpoint, against: operation)
            checkResponse(of: endpoint, against: operation)
        }
        for declared in spec.elsewhere {
            let key = OpenAPIDocument.Key(method: declared.method, path: declared.path)
            guard document.operations[key] != nil else {
                report(.error, "\(declared.method) \(declared.path) is not an operation of the server ('elsewhere')", at: declared.location)
                continue
            }
            covered.insert(key)
            findings.append(DriftFinding(severity: .note, message: "\(declared.method) \(declared.path) is covered outside the spec: \(declared.reason)", location: declared.location))
        }
        // Notes about no declaration: at the spec's start.
        let top = SourceLocation(file: spec.file, line: 1, column: 1)
        for key in document.operations.keys.filter({ !covered.contains($0) }).sorted() {
            let id = document.operations[key]?.operationID.map { " (\($0))" } ?? ""
            findings.append(DriftFinding(severity: .note, message: "the server has \(key.method) \(document.operations[key]?.path ?? key.path)\(id); the spec does not", location: top))
        }
    }

    mutating func report(_ severity: DriftFinding.Severity, _ message: String, at location: SourceLocation, declared reason: String? = nil) {
        if let reason {
            findings.append(DriftFinding(severity: .note, message: "\(message) (declared: \(reason))", location: location))
        } else {
            findings.append(DriftFinding(severity: severity, message: message, location: location))
        }
    }
}
