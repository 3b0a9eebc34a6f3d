import Foundation

/// What a developer would write by hand for the `bench_rows` table: the baseline the
/// generated `BenchRow` is measured against.
struct HandWrittenRow: Codable, Hashable, Sendable {
    var id: UUID
    var title: String
    var done: Bool?
    var priority: Int?
    var score: Double?
    var createdAt: Date?
    var notes: String?

    enum CodingKeys: String, CodingKey {
        case id, title, done, priority, score, notes
        case createdAt = "created_at"
    }
}
