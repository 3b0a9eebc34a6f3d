import SelfDBRuntime

// A push batch carries a row per mutation: through Foundation's `JSONEncoder` every value of
// it was boxed on its way through `Codable`, a tenth of a device's push on the client
// (Benchmarks/RESULTS.md, issue 25). The tree encoder takes each row's values as they are.
// The client's own pushes now write their body directly (`MutationPushBody`, the same bytes);
// this serves `SynchroV2API.Sync.push(_:)` for anyone calling the generated endpoint.
extension MutationPushRequest: JSONTreeEncodable {}
