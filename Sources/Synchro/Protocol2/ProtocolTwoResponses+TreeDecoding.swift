import SelfDBRuntime

// The protocol-2 responses that carry rows, decoded from a parsed tree: through Foundation's
// `JSONDecoder`, every value of a row that is not a string cost a thrown error, and decoding
// was the client's largest cost in a pull (Benchmarks/RESULTS.md, issue 25).
extension ScopedPullResponse: JSONTreeDecodable {}
extension RebuildResponse: JSONTreeDecodable {}
extension MutationPushResponse: JSONTreeDecodable {}
