import SelfDBRuntime

// Protocol 1's messages that carry rows, through the same tree coders as protocol 2's
// (`ProtocolTwoResponses+TreeDecoding.swift`): a pull or snapshot page of rows decodes from one
// parse, and a push batch encodes its rows' values as they are.
extension PullResponse: JSONTreeDecodable {}
extension SnapshotResponse: JSONTreeDecodable {}
extension PushResponse: JSONTreeDecodable {}
extension PushRequest: JSONTreeEncodable {}
