import Foundation
import LoupeQuery
import LoupeTrace

/// Writes a HAR file one entry at a time, so exporting a large store never holds every exchange in memory.
///
/// Output is pretty-printed with sorted keys, so the same exchanges always give the same bytes: the bytes
/// `JSONEncoder` (`[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`, dates as seconds since 1970 on the
/// microsecond grid) gives for the whole document, written entry by entry by ``HAREntryWriter`` into one
/// ``HARBytes`` buffer that is handed to the sink in large chunks.
///
/// ```swift
/// var writer = HARWriter { chunk in try handle.write(contentsOf: chunk) }
/// try writer.begin()
/// for exchange in exchanges { try writer.append(exchange) }
/// try writer.finish()
/// ```
package struct HARWriter {
    private let creator: HARCreator
    private let sink: (Data) throws -> Void
    /// The bytes not yet given to the sink; entries are written at the depth they sit at in the file. A reference:
    /// a copy of the writer would write into the same buffer (writers are not copied).
    private let out = HARBytes(capacity: HARWriter.chunkSize + 64 * 1024, depth: 3)
    private var written = 0
    /// A gRPC message's JSON text by its type (`loupe export --descriptor-set`), written as the message's `json`.
    package var messageJSON: (@Sendable (TraceExchange, TraceMessage) -> String?)?

    /// How many entries have been appended.
    package var count: Int { written }

    /// Bytes are handed to the sink in chunks of about this size (and whatever is left at ``finish()``).
    static let chunkSize = 256 * 1024

    /// - Parameters:
    ///   - creator: the log's `creator`.
    ///   - sink: receives the file's bytes in order, in chunks.
    package init(creator: HARCreator = HARExporter().creator, sink: @escaping (Data) throws -> Void) {
        self.creator = creator
        self.sink = sink
    }

    /// Seconds rounded to the microsecond. `Date` counts from 2001, so converting to 1970 and back can move a
    /// time by a fraction of a microsecond; rounding makes export → import → export give the same bytes.
    static func microseconds(_ seconds: Double) -> Double {
        guard abs(seconds) < 4e9 else { return seconds }
        return (seconds * 1_000_000).rounded() / 1_000_000
    }

    /// Writes the log's opening, up to the entries.
    package mutating func begin() throws {
        out.append("{\n  \"log\" : {\n    \"creator\" : ")
        let creator = HARBytes(capacity: 256, depth: 2)
        let object = creator.open(HAREntryWriter.openBrace)
        creator.member("comment", self.creator.comment)
        creator.member("name", self.creator.name)
        creator.member("version", self.creator.version)
        creator.close(HAREntryWriter.closeBrace, object)
        out.append(creator.bytes)
        out.append(",\n    \"entries\" : [")
    }

    /// Writes one exchange's entry.
    package mutating func append(_ exchange: TraceExchange) throws {
        try append(exchange, requestHeaders: .parsed(exchange.requestHeaders),
                   responseHeaders: .parsed(exchange.responseHeaders))
    }

    /// Writes one exchange's entry with its header lists from `headers` where stored ones are given (the
    /// exchange's lists are empty there: ``SQLiteTraceStore/export(matching:into:batchSize:byteBudget:)``).
    mutating func append(_ exchange: TraceExchange, storedHeaders headers: SQLiteTraceStore.StoredHeaderPair) throws {
        try append(exchange, requestHeaders: headers.request.map(HARHeaderSource.stored) ?? .parsed(exchange.requestHeaders),
                   responseHeaders: headers.response.map(HARHeaderSource.stored) ?? .parsed(exchange.responseHeaders))
    }

    private mutating func append(_ exchange: TraceExchange, requestHeaders: HARHeaderSource,
                                 responseHeaders: HARHeaderSource) throws {
        out.append(written == 0 ? "\n      " : ",\n      ")
        try HAREntryWriter.write(exchange, requestHeaders: requestHeaders, responseHeaders: responseHeaders, to: out,
                                 messageJSON: messageJSON)
        written += 1
        if out.count >= Self.chunkSize { try flush() }
    }

    /// Closes the entries and the log, and hands the sink the rest.
    package mutating func finish() throws {
        out.append("\n    ],\n    \"version\" : \"1.2\"\n  }\n}\n")
        try flush()
    }

    private func flush() throws {
        guard out.count > 0 else { return }
        try sink(Data(out.bytes))
        out.removeAll()
    }
}
