import HTTPTypes

extension HTTPField.Name {
    /// `X-API-Key`, required on every SelfDB request.
    static let apiKey: HTTPField.Name = {
        guard let name = HTTPField.Name("X-API-Key") else {
            preconditionFailure("X-API-Key is a valid header name")
        }
        return name
    }()
}
