import EmulatorSupport
import Foundation

/// The archives `GET /backups` lists: `selfdb_backup_YYYYMMDD_HHMMSS.tar.gz` files in the data
/// directory's `backups/`, named and checked as SelfDB's `backup_service` names and checks them.
struct BackupDirectory: Sendable {
    let root: URL

    /// One archive, as `BackupInfo`.
    struct Entry {
        var filename: String
        var size: Int64
        /// From the name, SelfDB's local time without a zone: `2026-11-29T06:42:22`.
        var createdAt: String
        var json: JSONValue {
            .object(JSONObject([("filename", .string(filename)), ("size", .int(size)), ("created_at", .string(createdAt))]))
        }
    }

    /// Every archive, newest first; files whose name holds no valid timestamp are skipped.
    func list() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        let entries = names.compactMap { name -> Entry? in
            guard name.hasPrefix(Self.prefix), name.hasSuffix(Self.suffix), let created = Self.timestamp(of: name),
                let size = (try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(name).path))?[.size] as? NSNumber
            else { return nil }
            return Entry(filename: name, size: size.int64Value, createdAt: created)
        }
        return entries.sorted { $0.createdAt > $1.createdAt }
    }

    /// The archive's file if `filename` is one SelfDB would serve: its prefix and suffix, no path
    /// separator or `..`, and an existing regular file.
    func file(named filename: String) -> URL? {
        guard filename.hasPrefix(Self.prefix), filename.hasSuffix(Self.suffix),
            !filename.contains("/"), !filename.contains("\\"), !filename.contains("..")
        else { return nil }
        let url = root.appendingPathComponent(filename)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return url
    }

    private static let prefix = "selfdb_backup_"
    private static let suffix = ".tar.gz"

    /// `YYYYMMDD_HHMMSS` from the name as ISO 8601 without a zone, or nil when it is not a date
    /// (Python's `strptime` would fail on it).
    private static func timestamp(of name: String) -> String? {
        let stamp = Array(name.dropFirst(prefix.count).dropLast(suffix.count).utf8)
        guard stamp.count == 15, stamp[8] == UInt8(ascii: "_") else { return nil }
        let digits = stamp[0..<8] + stamp[9..<15]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let text = String(decoding: digits, as: UTF8.self)
        func number(_ range: Range<Int>) -> Int {
            Int(text[text.index(text.startIndex, offsetBy: range.lowerBound)..<text.index(text.startIndex, offsetBy: range.upperBound)]) ?? -1
        }
        let (year, month, day, hour, minute, second) = (number(0..<4), number(4..<6), number(6..<8), number(8..<10), number(10..<12), number(12..<14))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard year >= 1, (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
            let date = calendar.date(from: components), calendar.component(.day, from: date) == day
        else { return nil }
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
    }
}
