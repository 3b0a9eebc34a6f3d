import EmulatorSupport
import Foundation
import Hummingbird

/// One matched request, handed to a route handler with everything already read.
struct APIRequest: Sendable {
    let method: HTTPRequest.Method
    let path: String
    /// Path parameters, percent-decoded; UUID parameters are already canonical.
    let parameters: [String: String]
    var query: QueryParameters
    let headers: HTTPFields
    let body: [UInt8]
    /// For a route that spools its body (``Route/BodyLimit/file``): the file holding it, which
    /// the handler may move away; removed after the handler returns otherwise.
    var bodyFile: URL? = nil

    /// A path parameter the route declared (routes only name parameters they declare).
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// A path parameter declared without `:uuid` but typed `UUID` in the handler: the id, or
    /// the `uuid_parsing` issue FastAPI reports for it.
    func uuidParameter(_ name: String) -> Result<String, ValidationIssue> {
        let text = parameter(name)
        return UUIDParsing.parse(text).mapError { .uuidParsing(.path, name, error: $0.message, input: .string(text)) }
    }

    /// ``uuidParameter(_:)``, its issue thrown as a 422.
    func requireUUIDParameter(_ name: String) throws(APIError) -> String {
        switch uuidParameter(name) {
        case .success(let id): id
        case .failure(let issue): throw APIError.validation([issue])
        }
    }

    /// The bearer token from `Authorization`, if any.
    var bearerToken: String? {
        guard let value = headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces
        return token.isEmpty ? nil : token
    }

    /// The body parsed as JSON; nil when the body is empty. Syntax errors are FastAPI's 422.
    func json() throws(APIError) -> JSONValue? {
        guard body.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return nil }
        do {
            return try JSONParser.parse(body)
        } catch {
            throw APIError.validation([.jsonInvalid(offset: error.offset, reason: error.reason)])
        }
    }
}
