import Hummingbird

extension Response {
    /// A JSON response with `content-type: application/json`.
    package static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: JSONWriter.bytes(value), status: status)
    }

    /// A JSON response whose body, `bytes`, is already written.
    package static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        return Response(
            status: status,
            headers: [.contentType: "application/json", .contentLength: String(bytes.count)],
            body: .init(byteBuffer: buffer)
        )
    }

    /// A response with no body (204 deletes, redirects).
    package static func empty(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        if status != .noContent {
            fields[.contentLength] = "0"
        }
        return Response(status: status, headers: fields, body: .init())
    }
}
