/// A parsed endpoint path: `/tables/{table_id}/data` → literal, parameter, literal.
public struct PathTemplate: Hashable, Sendable {
    /// Segments in order.
    public var segments: [PathSegment]
    /// Problems found while parsing (unbalanced braces, empty names), with the character
    /// offset of each.
    public var problems: [(offset: Int, message: String)] { problemList.map { ($0.offset, $0.message) } }

    private var problemList: [Problem] = []

    private struct Problem: Hashable, Sendable {
        var offset: Int
        var message: String
    }

    /// The parameter names in order of appearance.
    public var parameterNames: [String] {
        segments.compactMap { segment in
            if case .parameter(let name, _) = segment { return name }
            return nil
        }
    }

    /// Parses a template; never fails, problems are collected instead.
    public static func parse(_ path: String) -> PathTemplate {
        var template = PathTemplate(segments: [])
        var literal = ""
        var index = path.startIndex
        var offset = 0
        while index < path.endIndex {
            let character = path[index]
            if character == "{" {
                guard let close = path[index...].firstIndex(of: "}") else {
                    template.problemList.append(Problem(offset: offset, message: "'{' is never closed"))
                    literal.append(contentsOf: path[index...])
                    break
                }
                if !literal.isEmpty { template.segments.append(.literal(literal)) }
                literal = ""
                var name = String(path[path.index(after: index)..<close])
                let rest = name.hasSuffix("...")
                if rest { name.removeLast(3) }
                if name.isEmpty || name.contains("{") {
                    template.problemList.append(Problem(offset: offset, message: "'{\(name)}' is not a parameter name"))
                } else {
                    template.segments.append(.parameter(name: name, rest: rest))
                }
                offset += path[index...close].count
                index = path.index(after: close)
                continue
            }
            if character == "}" {
                template.problemList.append(Problem(offset: offset, message: "'}' without a matching '{'"))
            }
            literal.append(character)
            index = path.index(after: index)
            offset += 1
        }
        if !literal.isEmpty { template.segments.append(.literal(literal)) }
        return template
    }
}
