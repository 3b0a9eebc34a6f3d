/// A semantic version as clients send it in `X-App-Version` (`1.2.3`, `1.2`, `v1`,
/// `1.2.3-beta.1+45`); missing parts count as 0, build metadata is ignored and a
/// pre-release sorts before its release.
struct AppVersion: Sendable, Comparable {
    var components: [Int]
    var isPreRelease: Bool

    init?(_ text: String) {
        var core = Substring(text)
        if core.first == "v" || core.first == "V" { core = core.dropFirst() }
        if let plus = core.firstIndex(of: "+") { core = core[..<plus] }
        isPreRelease = false
        if let dash = core.firstIndex(of: "-") {
            guard core.index(after: dash) < core.endIndex else { return nil }
            isPreRelease = true
            core = core[..<dash]
        }
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), let number = Int(part), number >= 0 else { return nil }
            numbers.append(number)
        }
        components = numbers + Array(repeating: 0, count: 3 - numbers.count)
    }

    static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        if lhs.components != rhs.components {
            return lhs.components.lexicographicallyPrecedes(rhs.components)
        }
        return lhs.isPreRelease && !rhs.isPreRelease
    }
}
