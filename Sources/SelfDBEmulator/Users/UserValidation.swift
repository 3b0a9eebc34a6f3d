/// The field rules of SelfDB's user models.
enum UserValidation {
    static let passwordPattern = "^[A-Za-z0-9@$!%*?&]+$"

    static func isValidPassword(_ password: String) -> Bool {
        password.unicodeScalars.allSatisfy { scalar in
            (scalar >= "A" && scalar <= "Z") || (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9")
                || "@$!%*?&".unicodeScalars.contains(scalar)
        }
    }

    /// A pragmatic email check: one `@`, a non-empty local part, a dotted domain, no spaces.
    static func emailProblem(_ email: String) -> String? {
        // email-validator's words, as SelfDB v0.0.5 answers them.
        let parts = email.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "An email address must have an @-sign." }
        guard !parts[0].isEmpty else { return "There must be something before the @-sign." }
        let domain = parts[1]
        guard !domain.isEmpty else { return "There must be something after the @-sign." }
        if domain.contains("@") { return "The part after the @-sign contains invalid characters: '@'." }
        if parts[0].contains(" ") { return "The email address contains invalid characters before the @-sign: SPACE." }
        guard !email.contains(where: { $0 == " " || $0.isNewline }), email.utf8.count <= 254 else {
            return "The email address contains invalid characters."
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else {
            return "The part after the @-sign is not valid. It should have a period."
        }
        return nil
    }

    /// Reads `email` with SelfDB's checks.
    static func email(_ reader: inout BodyReader, required: Bool) -> String? {
        guard let email = reader.string("email", required: required) else { return nil }
        if let problem = emailProblem(email) {
            reader.fail(.invalidEmail("email", reason: problem, input: .string(email)))
            return nil
        }
        return email
    }

    /// Reads `firstName`/`lastName` (also in snake_case): at most 100 characters, not blank,
    /// and free of control characters (NUL included), which SelfDB refuses on create and on
    /// PATCH alike.
    static func name(_ reader: inout BodyReader, _ field: String, alias: String, required: Bool) -> String? {
        guard let name = reader.string(field, aliases: [alias], required: required, nullable: !required, maxLength: 100) else {
            return nil
        }
        if name.allSatisfy(\.isWhitespace) {
            reader.fail(.valueError(.body, field, message: "Name cannot be empty", input: .string(name)))
            return nil
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            reader.fail(.valueError(.body, field, message: "Name cannot contain control characters", input: .string(name)))
            return nil
        }
        return name
    }

    /// Reads `password`: 8–72 characters of `[A-Za-z0-9@$!%*?&]`. SelfDB v0.0.5 reports a
    /// short one as pydantic's `too_short` (field_type "Value", with the length found), not as
    /// `string_too_short`.
    static func password(_ reader: inout BodyReader, required: Bool) -> String? {
        reader.string(
            "password",
            required: required,
            minLength: 8,
            minLengthReport: .value,
            maxLength: 72,
            pattern: (passwordPattern, isValidPassword)
        )
    }
}
