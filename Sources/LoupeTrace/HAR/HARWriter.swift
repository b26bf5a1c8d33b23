import Foundation

/// Writes a HAR file one entry at a time, so exporting a large store never holds every exchange in memory.
///
/// Output is pretty-printed with sorted keys, so the same exchanges always give the same bytes.
///
/// ```swift
/// var writer = HARWriter { chunk in try handle.write(contentsOf: chunk) }
/// try writer.begin()
/// for exchange in exchanges { try writer.append(exchange) }
/// try writer.finish()
/// ```
package struct HARWriter {
    private let exporter: HARExporter
    private let sink: (Data) throws -> Void
    private let encoder: JSONEncoder
    private var written = 0

    /// How many entries have been appended.
    package var count: Int { written }

    /// - Parameters:
    ///   - creator: the log's `creator`.
    ///   - sink: receives the file's bytes in order.
    package init(creator: HARCreator = HARExporter().creator, sink: @escaping (Data) throws -> Void) {
        exporter = HARExporter(creator: creator)
        self.sink = sink
        encoder = Self.makeEncoder()
    }

    /// The encoder behind the file's format (dates in `_loupe` as seconds since 1970, to the microsecond).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(microseconds(date.timeIntervalSince1970))
        }
        return encoder
    }

    /// Seconds rounded to the microsecond. `Date` counts from 2001, so converting to 1970 and back can move a
    /// time by a fraction of a microsecond; rounding makes export → import → export give the same bytes.
    static func microseconds(_ seconds: Double) -> Double {
        guard abs(seconds) < 4e9 else { return seconds }
        return (seconds * 1_000_000).rounded() / 1_000_000
    }

    /// Writes the log's opening, up to the entries.
    package mutating func begin() throws {
        let creator = Self.indented(try encoder.encode(exporter.creator), by: 4)
        try sink(Data("{\n  \"log\" : {\n    \"creator\" : ".utf8) + creator + Data(",\n    \"entries\" : [".utf8))
    }

    /// Writes one exchange's entry.
    package mutating func append(_ exchange: TraceExchange) throws {
        try append(exporter.entry(for: exchange))
    }

    /// Writes one entry as given.
    package mutating func append(_ entry: HAREntry) throws {
        let json = Self.indented(try encoder.encode(entry), by: 6)
        try sink(Data((written == 0 ? "\n      " : ",\n      ").utf8) + json)
        written += 1
    }

    /// Closes the entries and the log.
    package mutating func finish() throws {
        try sink(Data("\n    ],\n    \"version\" : \"1.2\"\n  }\n}\n".utf8))
    }

    /// Indents every line after the first (JSON strings hold no raw newlines, so only layout changes).
    private static func indented(_ json: Data, by spaces: Int) -> Data {
        let indent = [UInt8](repeating: UInt8(ascii: " "), count: spaces)
        var result = [UInt8]()
        result.reserveCapacity(json.count + json.count / 4)
        json.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var lineStart = 0
            while let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                result.append(contentsOf: bytes[lineStart...newline])
                result.append(contentsOf: indent)
                lineStart = newline + 1
            }
            result.append(contentsOf: bytes[lineStart...])
        }
        return Data(result)
    }
}
