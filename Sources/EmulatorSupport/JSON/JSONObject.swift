/// A JSON object that remembers the order its keys were inserted in.
///
/// Objects on the SelfDB wire are small (a row, a model), so a linear scan beats the
/// bookkeeping of a hashed index.
package struct JSONObject: Sendable, Equatable, Hashable, Sequence {
    /// The members in insertion order.
    package private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    package init() {
        members = []
    }

    /// An object with these members; a repeated key keeps its first position and last value.
    package init(_ pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            self[key] = value
        }
    }

    /// The keys in order.
    package var keys: [String] { members.map(\.key) }

    /// Number of members.
    package var count: Int { members.count }

    /// `true` when the object has no members.
    package var isEmpty: Bool { members.isEmpty }

    /// Reads, replaces, appends or (with `nil`) removes a member.
    package subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key {
                return member.value
            }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// `true` if the key is present (even with a `null` value).
    package func contains(_ key: String) -> Bool {
        members.contains { $0.key == key }
    }

    package func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.members where rhs[key] != value {
            return false
        }
        return true
    }

    package func hash(into hasher: inout Hasher) {
        // Order-independent so that equal objects hash equally.
        var combined = 0
        for (key, value) in members {
            var inner = Hasher()
            inner.combine(key)
            inner.combine(value)
            combined ^= inner.finalize()
        }
        hasher.combine(combined)
    }
}
