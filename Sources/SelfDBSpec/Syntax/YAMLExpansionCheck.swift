import CYaml

/// Walks libyaml's event stream before Yams composes a document and refuses one whose
/// aliases would expand it beyond what any spec needs, or that nests deeper than the spec
/// language goes.
///
/// Yams resolves an alias by sharing the anchored node, so composing a "billion laughs"
/// document is cheap — but everything after it is not: Yams hashes mapping keys to find
/// duplicates (an aliased key is hashed whole), and the loader and validator walk every
/// node. Nine levels of ten aliases each make 10⁹ nodes from 1 KB of YAML, which used to
/// run until killed inside every build that applied the plugin. Counting here is linear
/// in the events: each anchor's size is known when its node ends, and an alias adds that
/// size without being walked.
enum YAMLExpansionCheck {
    /// Nodes a document may expand to beyond one per byte of its text. Ordinary reuse of
    /// anchors stays far below it; converting this many nodes takes well under a second.
    static let aliasAllowance = 100_000
    /// Deeper nesting than any spec needs; also keeps every recursive walk after this one
    /// (Yams' composer, the loader, the validator) shallow.
    static let maximumDepth = 64
    static let depthMessage = "the document nests more than \(maximumDepth) levels deep; specs need far fewer"

    /// A problem found, with libyaml's 1-based position.
    struct Problem: Error, Equatable {
        var message: String
        var line: Int
        var column: Int
    }

    /// Returns the first problem, or nil when the document is within bounds. Syntax errors
    /// are not reported here: the check stops at them and Yams reports them as usual.
    static func problem(in text: String) -> Problem? {
        var bytes = Array(text.utf8)
        let budget = bytes.count.addingReportingOverflow(aliasAllowance).partialValue
        return bytes.withUnsafeMutableBufferPointer { buffer -> Problem? in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)

            var walk = Walk(budget: budget)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nestingProblem(of: parser) }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return nil }
                if let problem = walk.visit(event) { return problem }
            }
        }
    }

    /// libyaml's scanner reads ahead and may stop at its own nesting limit (1,000 flow
    /// levels) before the walk reaches depth 64; that is the same mistake, so it gets the
    /// same words. Any other syntax error is left to Yams.
    private static func nestingProblem(of parser: yaml_parser_t) -> Problem? {
        guard let problem = parser.problem, String(cString: problem).contains("nesting level") else { return nil }
        return Problem(
            message: depthMessage,
            line: Int(parser.problem_mark.line) + 1,
            column: Int(parser.problem_mark.column) + 1
        )
    }

    /// The running count: one frame per open collection, sizes of finished anchors.
    private struct Walk {
        private struct Frame {
            var anchor: String?
            var nodes: Int
        }

        let budget: Int
        private var frames: [Frame] = []
        private var anchorSizes: [String: Int] = [:]
        private var expanded = 0

        init(budget: Int) {
            self.budget = budget
        }

        mutating func visit(_ event: yaml_event_t) -> Problem? {
            let line = Int(event.start_mark.line) + 1
            let column = Int(event.start_mark.column) + 1
            switch event.type {
            case YAML_SCALAR_EVENT:
                if let anchor = string(event.data.scalar.anchor) { anchorSizes[anchor] = 1 }
                return count(1, line: line, column: column)
            case YAML_ALIAS_EVENT:
                guard let name = string(event.data.alias.anchor) else { return nil }
                // An undefined alias is Yams' to report, with its own message.
                guard count(anchorSizes[name] ?? 1, line: line, column: column) == nil else {
                    return Problem(
                        message: "the alias '*\(name)' expands the document past \(aliasAllowance) nodes more than its size in "
                            + "bytes; aliases may repeat an anchor, not multiply it like this",
                        line: line,
                        column: column
                    )
                }
                return nil
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                guard frames.count < maximumDepth else {
                    return Problem(message: depthMessage, line: line, column: column)
                }
                // The collection's own node: counted in the document now, and in its parent
                // with the rest of it when it ends.
                let problem = count(1, inFrame: false, line: line, column: column)
                let anchor =
                    event.type == YAML_SEQUENCE_START_EVENT
                    ? string(event.data.sequence_start.anchor) : string(event.data.mapping_start.anchor)
                frames.append(Frame(anchor: anchor, nodes: 1))
                return problem
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = frames.popLast() else { return nil }
                if let anchor = frame.anchor { anchorSizes[anchor] = frame.nodes }
                if !frames.isEmpty { frames[frames.count - 1].nodes += frame.nodes }
                return nil
            default:
                return nil
            }
        }

        /// Counts `size` more nodes in the document and, unless told otherwise, in the
        /// innermost open collection. Sizes never exceed the budget, so nothing overflows.
        private mutating func count(_ size: Int, inFrame: Bool = true, line: Int, column: Int) -> Problem? {
            expanded += size
            guard expanded <= budget else {
                return Problem(
                    message: "the document expands past \(aliasAllowance) nodes more than its size in bytes",
                    line: line,
                    column: column
                )
            }
            if inFrame, !frames.isEmpty { frames[frames.count - 1].nodes += size }
            return nil
        }

        private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            guard let pointer else { return nil }
            return String(cString: pointer)
        }
    }
}
