/// "did you mean" suggestions by edit distance.
public enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be a likely typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        let length = lowered.unicodeScalars.count
        let limit = max(1, min(3, (word.count + 2) / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            if other == lowered { return candidate }
            // The distance is at least the difference in length: skip what cannot qualify
            // (and the quadratic work on a name a megabyte long).
            guard abs(other.unicodeScalars.count - length) <= limit else { continue }
            let distance = editDistance(lowered, other)
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        return best.distance <= limit ? best.name : nil
    }

    /// `; did you mean 'x'?`, or nothing.
    public static func didYouMean(_ word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Damerau–Levenshtein distance (optimal string alignment), so a swapped pair of letters
    /// (`UserRoel`) counts as one edit.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs.unicodeScalars)
        let b = Array(rhs.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            previousPrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
