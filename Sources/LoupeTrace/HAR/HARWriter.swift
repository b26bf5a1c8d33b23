import Foundation

/// Writes a HAR file one entry at a time, so exporting a large store never holds every exchange in memory.
///
/// Output is pretty-printed with sorted keys, so the same exchanges always give the same bytes: the bytes
/// `JSONEncoder` (`[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`, dates as seconds since 1970 on the
/// microsecond grid) gives for the whole document, written entry by entry through ``PrettyJSON``.
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
    /// The bytes not yet given to the sink; entries are written at the depth they sit at in the file.
    private var json = PrettyJSON(depth: 3)
    private var written = 0

    /// How many entries have been appended.
    package var count: Int { written }

    /// Bytes are handed to the sink in chunks of about this size (and whatever is left at ``finish()``).
    static let chunkSize = 256 * 1024

    /// - Parameters:
    ///   - creator: the log's `creator`.
    ///   - sink: receives the file's bytes in order, in chunks.
    package init(creator: HARCreator = HARExporter().creator, sink: @escaping (Data) throws -> Void) {
        exporter = HARExporter(creator: creator)
        self.sink = sink
        json.bytes.reserveCapacity(Self.chunkSize + 64 * 1024)
    }

    /// Seconds rounded to the microsecond. `Date` counts from 2001, so converting to 1970 and back can move a
    /// time by a fraction of a microsecond; rounding makes export → import → export give the same bytes.
    static func microseconds(_ seconds: Double) -> Double {
        guard abs(seconds) < 4e9 else { return seconds }
        return (seconds * 1_000_000).rounded() / 1_000_000
    }

    /// Writes the log's opening, up to the entries.
    package mutating func begin() throws {
        var creator = PrettyJSON(depth: 2)
        exporter.creator.write(to: &creator)
        append("{\n  \"log\" : {\n    \"creator\" : ")
        json.bytes.append(contentsOf: creator.bytes)
        append(",\n    \"entries\" : [")
    }

    /// Writes one exchange's entry.
    package mutating func append(_ exchange: TraceExchange) throws {
        try append(exporter.entry(for: exchange))
    }

    /// Writes one entry as given.
    package mutating func append(_ entry: HAREntry) throws {
        append(written == 0 ? "\n      " : ",\n      ")
        try entry.write(to: &json)
        written += 1
        if json.bytes.count >= Self.chunkSize { try flush() }
    }

    /// Closes the entries and the log, and hands the sink the rest.
    package mutating func finish() throws {
        append("\n    ],\n    \"version\" : \"1.2\"\n  }\n}\n")
        try flush()
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { json.bytes.append(contentsOf: $0) }
    }

    private mutating func flush() throws {
        guard !json.bytes.isEmpty else { return }
        try sink(Data(json.bytes))
        json.bytes.removeAll(keepingCapacity: true)
    }
}
