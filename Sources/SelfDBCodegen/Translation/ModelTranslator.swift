import SelfDBSpec

/// Emits `models:`: structs, open string enums and type aliases.
struct ModelTranslator {
    let spec: Spec
    let types: TypeMapper
    var access: String { spec.access.rawValue }

    func emit(_ model: ModelDeclaration, into writer: inout SwiftWriter) {
        writer.documentation(model.description)
        switch model.kind {
        case .alias(let target):
            writer.line("\(access) typealias \(model.name.value) = \(types.swiftType(target.value))")
        case .enumeration(let enumeration):
            emitEnum(model.name.value, enumeration, into: &writer)
        case .structure(let structure):
            emitStruct(model.name.value, structure, into: &writer)
        }
    }

    private func emitStruct(_ name: String, _ structure: StructModel, into writer: inout SwiftWriter) {
        let declared = structure.conformances.map(\.value)
        // A model with a non-optional `id` is `Identifiable`: SwiftUI lists and the cache's
        // `CacheableModel` key take it from there.
        let hasID = structure.fields.contains { SwiftNamesRendering.member($0.swiftName.value) == "id" && !$0.type.value.isOptional }
        let identifiable = hasID && !declared.contains("Identifiable") ? ["Identifiable"] : []
        let conformances = (["Codable", "Hashable", "Sendable"] + identifiable + declared).joined(separator: ", ")
        writer.block("\(access) struct \(name): \(conformances)") { writer in
            for field in structure.fields {
                writer.documentation(field.description)
                writer.line("\(access) var \(SwiftNamesRendering.member(field.swiftName.value)): \(types.swiftType(field.type.value))")
            }
            if !structure.fields.isEmpty { writer.line() }
            emitInitializer(name, structure.fields, into: &writer)
            writer.line()
            emitDecoder(structure, into: &writer)
            writer.line()
            emitEncoder(structure, into: &writer)
        }
    }

    private func emitInitializer(_ name: String, _ fields: [FieldDeclaration], into writer: inout SwiftWriter) {
        writer.line("/// Creates a `\(name)`.")
        let parameters = fields.map { field -> String in
            "\(SwiftNamesRendering.member(field.swiftName.value)): \(types.swiftType(field.type.value))\(defaultClause(field))"
        }
        writer.block("\(access) init", parameters: parameters) { writer in
            for field in fields {
                let member = SwiftNamesRendering.member(field.swiftName.value)
                writer.line("self.\(member) = \(member)")
            }
        }
    }

    private func defaultClause(_ field: FieldDeclaration) -> String {
        if let value = field.defaultValue { return " = " + types.literal(value.value, for: field.type.value) }
        return field.type.value.isOptional ? " = nil" : ""
    }

    /// Every model decodes and encodes through the runtime's shared `WireKey` rather than a
    /// `CodingKeys` enum of its own, and with written-out members rather than synthesized ones:
    /// the enum's conformances were the largest part of a model's compiled code (see
    /// `WireKey`). The members do what the synthesized ones would, plus two things the spec
    /// can ask for: a missing key takes the field's default (what a default in a wire model
    /// means), and a lenient field swallows a value of the wrong form (`try?` flattens to `T?`).
    private func emitDecoder(_ structure: StructModel, into writer: inout SwiftWriter) {
        var rules: [String] = []
        if structure.fields.contains(where: { $0.type.value.isOptional }) { rules.append("an optional field may be missing or `null`") }
        if structure.fields.contains(where: { $0.defaultValue != nil }) { rules.append("a missing field takes its spec default") }
        if structure.fields.contains(where: { $0.isLenient }) { rules.append("a lenient field whose value does not decode is nil or its default") }
        let summary = rules.isEmpty ? "" : "; " + rules.joined(separator: ", ")
        writer.line("/// Decodes the JSON object\(summary).")
        writer.block("\(access) init(from decoder: any Decoder) throws") { writer in
            guard !structure.fields.isEmpty else {
                writer.line("_ = try decoder.container(keyedBy: WireKey.self)")
                return
            }
            writer.line("let container = try decoder.container(keyedBy: WireKey.self)")
            for field in structure.fields {
                let member = SwiftNamesRendering.member(field.swiftName.value)
                let key = field.wireName.swiftLiteral
                let type = field.type.value
                let decoded = types.swiftType(type.nonOptional)
                if field.isLenient {
                    let fallback = field.defaultValue.map { " ?? " + types.literal($0.value, for: type) } ?? ""
                    let read = "try? container.decodeIfPresent(\(decoded).self, forKey: \(key))"
                    writer.line("self.\(member) = \(fallback.isEmpty ? read : "(\(read))\(fallback)")")
                } else if let value = field.defaultValue {
                    writer.line("self.\(member) = try container.decodeIfPresent(\(decoded).self, forKey: \(key)) ?? \(types.literal(value.value, for: type))")
                } else if type.isOptional {
                    writer.line("self.\(member) = try container.decodeIfPresent(\(decoded).self, forKey: \(key))")
                } else {
                    writer.line("self.\(member) = try container.decode(\(decoded).self, forKey: \(key))")
                }
            }
        }
    }

    /// The synthesized form, written out: a `nil` field is left out of the object.
    private func emitEncoder(_ structure: StructModel, into writer: inout SwiftWriter) {
        let hasOptional = structure.fields.contains { $0.type.value.isOptional }
        writer.line(hasOptional ? "/// Encodes the JSON object; a `nil` field is left out." : "/// Encodes the JSON object.")
        writer.block("\(access) func encode(to encoder: any Encoder) throws") { writer in
            guard !structure.fields.isEmpty else {
                writer.line("_ = encoder.container(keyedBy: WireKey.self)")
                return
            }
            writer.line("var container = encoder.container(keyedBy: WireKey.self)")
            for field in structure.fields {
                let member = SwiftNamesRendering.member(field.swiftName.value)
                let method = field.type.value.isOptional ? "encodeIfPresent" : "encode"
                writer.line("try container.\(method)(self.\(member), forKey: \(field.wireName.swiftLiteral))")
            }
        }
    }

    /// `text` in code voice, unless a backtick in it would end the code span early.
    private static func codeVoice(_ text: String) -> String {
        text.contains("`") ? text : "`\(text)`"
    }

    private func emitEnum(_ name: String, _ enumeration: EnumModel, into writer: inout SwiftWriter) {
        writer.block("\(access) enum \(name): RawRepresentable, Codable, Hashable, Sendable, QueryValueConvertible") { writer in
            for item in enumeration.cases {
                // A spec's enum values carry no description of their own: the comment names
                // the value on the wire, which is what a reader of the docs needs to match.
                writer.line("/// The value \(Self.codeVoice(item.value.value.swiftLiteral)) on the wire.")
                writer.line("case \(SwiftNamesRendering.member(item.swiftName.value))")
            }
            writer.line("/// A value this version of the spec does not list; kept so that newer servers do not break decoding.")
            writer.line("case unknown(String)")
            writer.line()
            writer.line("/// The case of `rawValue`; a value the spec does not list is `unknown(rawValue)`, so decoding never fails.")
            writer.block("\(access) init(rawValue: String)") { writer in
                writer.switchBlock("rawValue") { writer in
                    for item in enumeration.cases {
                        writer.line("case \(item.value.value.swiftLiteral): self = .\(SwiftNamesRendering.member(item.swiftName.value))")
                    }
                    writer.line("default: self = .unknown(rawValue)")
                }
            }
            writer.line()
            writer.line("/// The value on the wire.")
            writer.block("\(access) var rawValue: String") { writer in
                writer.switchBlock("self") { writer in
                    for item in enumeration.cases {
                        writer.line("case .\(SwiftNamesRendering.member(item.swiftName.value)): \(item.value.value.swiftLiteral)")
                    }
                    writer.line("case .unknown(let value): value")
                }
            }
            writer.line()
            writer.line("/// The values the spec lists, in its order.")
            let cases = enumeration.cases.map { "." + SwiftNamesRendering.member($0.swiftName.value) }.joined(separator: ", ")
            writer.line("\(access) static let knownCases: [\(name)] = [\(cases)]")
        }
    }
}
