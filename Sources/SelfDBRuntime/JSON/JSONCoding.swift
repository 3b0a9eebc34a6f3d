import Foundation

/// The JSON coders the client uses, configured for what servers really send.
public enum JSONCoding {
    /// A decoder that reads ISO 8601 dates with or without fractional seconds of any length,
    /// with `Z` or a numeric offset, and plain `YYYY-MM-DD` dates (SelfDB sends all of these).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = TimestampParser.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    /// An encoder that writes dates as ISO 8601 with milliseconds and `Z`, and sorts keys so
    /// request bodies are deterministic.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(TimestampParser.format(date))
        }
        return encoder
    }
}
