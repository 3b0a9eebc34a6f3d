import SelfDBRuntime

extension OutgoingChange {
    /// Whether a record of one batch is named by a value of the other, in either direction,
    /// compared without case: a comment naming its task, a membership naming its document.
    ///
    /// Protocol 2 says nothing of which tables refer to which, and a record's scopes may be
    /// computed from rows of other tables (a comment's from its task's, a document's from its
    /// members'). Two pushes on the wire may run in two transactions on the server, each
    /// blind to the other's rows until it commits, so a batch linked to the one still
    /// unanswered waits for its answer. A reference by something other than a record's key
    /// (a natural key) is not seen.
    static func linked(_ batch: [OutgoingChange], _ other: [OutgoingChange]) -> Bool {
        names(batch, recordOf: other) || names(other, recordOf: batch)
    }

    /// Whether a string value of a change of `batch` is the id of a record of `other`.
    private static func names(_ batch: [OutgoingChange], recordOf other: [OutgoingChange]) -> Bool {
        var ids: Set<String> = []
        ids.reserveCapacity(other.count)
        var longest = 0
        for change in other {
            // Pending record ids are lower-cased.
            ids.insert(change.pending.recordID)
            longest = max(longest, change.pending.recordID.utf8.count)
        }
        func isUpperCaseASCII(_ byte: UInt8) -> Bool { (65...90).contains(byte) }
        for change in batch {
            for value in change.change.data?.values ?? [:].values {
                guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= longest else { continue }
                if ids.contains(text) || (text.utf8.contains(where: isUpperCaseASCII) && ids.contains(text.lowercased())) { return true }
            }
        }
        return false
    }
}
