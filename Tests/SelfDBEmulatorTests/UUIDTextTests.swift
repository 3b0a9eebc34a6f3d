import Foundation
import Testing

@testable import EmulatorSupport

@Suite("UUIDText")
struct UUIDTextTests {
    static let valid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    @Test("isUUID takes the hyphenated 8-4-4-4-12 form in either case")
    func acceptsTheHyphenatedForm() {
        for text in [Self.valid, Self.valid.lowercased(), "00000000-0000-0000-0000-000000000000", "ffffffff-FFFF-ffff-FFFF-ffffffffffff"] {
            #expect(UUIDText.isUUID(text), "\(text)")
        }
        #expect(UUIDText.isUUID(UUID().uuidString))
    }

    /// Foundation's `UUID(uuidString:)` on Linux takes several of these (a space or a hyphen
    /// in a hex pair, anything after a NUL); PostgreSQL's uuid type takes none of them.
    @Test("isUUID refuses every other character in any place, other lengths, and what follows a NUL")
    func refusesEverythingElse() {
        var samples: [String] = ["", "-", String(Self.valid.dropLast()), Self.valid + "0", Self.valid + "\u{0}", Self.valid + "\u{0}0"]
        samples += [" " + Self.valid, Self.valid + " ", "{" + Self.valid + "}", Self.valid.replacingOccurrences(of: "-", with: "")]
        let hyphens: Set<Int> = [8, 13, 18, 23]
        let replacements: [Character] = ["-", "0", "g", "G", " ", "\u{0}", "é", "/", ":", "@", "`"]
        for index in 0..<36 {
            for replacement in replacements {
                // A hex digit for a hex digit, or a hyphen for a hyphen, is still a UUID.
                if replacement == "0" && !hyphens.contains(index) || replacement == "-" && hyphens.contains(index) { continue }
                var characters = Array(Self.valid)
                characters[index] = replacement
                samples.append(String(characters))
            }
        }
        for sample in samples {
            #expect(!UUIDText.isUUID(sample), "\(sample.debugDescription)")
        }
    }
}
