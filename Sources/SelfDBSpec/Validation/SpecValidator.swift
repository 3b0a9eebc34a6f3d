/// Semantic checks on a loaded spec: names, references, endpoint shapes, table models.
///
/// Every diagnostic carries the location of the node that caused it, so a typo in a spec
/// fails the build with a `file:line:col: error:` line that editors jump to.
public struct SpecValidator {
    let spec: Spec
    let types: TypeTable
    var diagnostics: [Diagnostic] = []

    /// Validates `spec` and returns what is wrong with it.
    public static func validate(_ spec: Spec) -> [Diagnostic] {
        var validator = SpecValidator(spec: spec, types: TypeTable(spec))
        validator.run()
        return validator.diagnostics
    }

    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(.error(message, at: location))
    }

    mutating func warning(_ message: String, at location: SourceLocation) {
        diagnostics.append(.warning(message, at: location))
    }

    private mutating func run() {
        checkTypeNames()
        for model in spec.models { checkModel(model) }
        checkClient()
        checkEndpoints()
        for table in spec.tables { checkTable(table) }
        checkSync()
    }

    // MARK: - Shared checks

    /// Reports an unknown type name, with a suggestion from the built-ins and declarations.
    mutating func checkResolves(_ type: Located<TypeReference>) {
        let name = type.value.innermostName
        guard !types.isKnown(name) else { return }
        let hint = Suggestion.didYouMean(name, in: types.allNames)
        error("unknown type '\(name)'\(hint)", at: type.location)
    }

    /// Reports a name that cannot be a Swift identifier; returns whether it can.
    @discardableResult
    mutating func checkIdentifier(_ name: Located<String>, _ what: String, allowKeywords: Bool = false) -> Bool {
        if !SwiftNames.isIdentifierShape(name.value) {
            error("\(what) '\(name.value)' is not a valid Swift identifier", at: name.location)
            return false
        } else if !allowKeywords, SwiftNames.keywords.contains(name.value) {
            error("\(what) '\(name.value)' is a Swift keyword; choose another name", at: name.location)
            return false
        }
        return true
    }

    private mutating func checkTypeNames() {
        var seen: [String: SourceLocation] = [:]
        let declared = spec.models.map(\.name) + spec.tables.map(\.name)
        for name in declared {
            if let first = seen[name.value] {
                error("duplicate type name '\(name.value)'; first declared at line \(first.line)", at: name.location)
                continue
            }
            seen[name.value] = name.location
            // One finding per name: a keyword needs renaming, not also capitalising.
            guard checkIdentifier(name, "type name") else { continue }
            if BuiltinType(rawValue: name.value) != nil || SwiftNames.reservedTypeNames.contains(name.value) {
                error("type name '\(name.value)' is reserved: it would shadow a type the generated code uses", at: name.location)
            } else if let first = name.value.first, first.isLowercase {
                warning("type name '\(name.value)' should start with an uppercase letter ('\(NameConversion.upperCamelCase(name.value))')", at: name.location)
            } else if SwiftNames.standardLibraryTypeNames.contains(name.value) {
                let qualified = name.value == "Task" ? "_Concurrency.Task" : "Swift.\(name.value)"
                warning(
                    "type name '\(name.value)' shadows Swift's own '\(name.value)' in the module that uses this spec (it must then be written '\(qualified)'); consider another name",
                    at: name.location
                )
            }
        }
        for alias in spec.models {
            guard case .alias = alias.kind, types.isCyclicAlias(alias.name.value) else { continue }
            error("alias '\(alias.name.value)' refers to itself", at: alias.name.location)
        }
    }
}
