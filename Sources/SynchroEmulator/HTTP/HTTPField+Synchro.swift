import HTTPTypes

extension HTTPField.Name {
    /// `X-App-Version`, the client's semantic version on every `/sync/*` call.
    static let appVersion: HTTPField.Name = {
        guard let name = HTTPField.Name("X-App-Version") else {
            preconditionFailure("X-App-Version is a valid header name")
        }
        return name
    }()
}

extension HTTPField.Name {
    /// `X-Client-Version`, which protocol 2's version gate reads before `X-App-Version`.
    static let clientVersion: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Client-Version") else {
            preconditionFailure("X-Client-Version is a valid header name")
        }
        return name
    }()
}
