import Hummingbird

extension Response {
    /// A JSON response with `content-type: application/json`.
    package static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = JSONWriter.bytes(value)
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
