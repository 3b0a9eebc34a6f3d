extension SpecValidator {
    /// `stream:` gives an endpoint a second function that moves its `Bytes` body or answer
    /// through a file. It can only say that of raw bytes, and the variant's own arguments must
    /// not meet a parameter of the same Swift name.
    mutating func checkStream(_ endpoint: EndpointDeclaration) {
        guard let stream = endpoint.stream else { return }
        let added: [String]
        switch stream.value {
        case .body:
            guard let body = endpoint.parameters.first(where: { $0.location == .body }) else {
                error("'stream: body' needs a 'Bytes' body parameter to read from a file; '\(endpoint.name.value)' has no body", at: stream.location)
                return
            }
            guard types.isKnown(body.type.value.innermostName) else { return }
            // An optional body is reported by the parameter checks.
            guard types.isBytes(body.type.value) else {
                error("'stream: body' reads a raw 'Bytes' body from a file; the body '\(body.key.value)' is '\(body.type.value)'", at: stream.location)
                return
            }
            added = ["fileURL", "progress"]
        case .returns:
            guard let returns = endpoint.returns else {
                error("'stream: returns' writes a 'Bytes' answer to a file; '\(endpoint.name.value)' has no 'returns'", at: stream.location)
                return
            }
            guard types.isKnown(returns.value.innermostName) else { return }
            guard types.isBytes(returns.value) else {
                error("'stream: returns' writes a raw 'Bytes' answer to a file; '\(endpoint.name.value)' returns '\(returns.value)'", at: stream.location)
                return
            }
            added = ["destination", "progress"]
        }
        if let session = endpoint.session {
            error("'stream' and 'session: \(session.rawValue)' do not go together: a file transfer neither signs in nor out", at: stream.location)
        }
        // The Swift names the variant keeps: every argument but the body it replaces.
        var kept: [(name: String, parameter: ParameterDeclaration)] = []
        for parameter in endpoint.parameters where !(parameter.location == .body && stream.value == .body) {
            if parameter.location == .body, parameter.flatten, let structure = types.structure(parameter.type.value) {
                kept += structure.fields.map { ($0.swiftName.value, parameter) }
            } else {
                kept.append((parameter.swiftName.value, parameter))
            }
        }
        for name in added {
            if let clash = kept.first(where: { $0.name == name }) {
                error(
                    "the file variant of '\(endpoint.name.value)' adds the argument '\(name)', which is also a Swift name of its parameter '\(clash.parameter.key.value)'; set 'swift:' on it",
                    at: clash.parameter.key.location
                )
            }
        }
    }
}
