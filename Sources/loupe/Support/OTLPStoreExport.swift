import Foundation
import Loupe
import LoupeOTLP
import LoupeQuery
import LoupeTrace

/// A store's exchanges (or those a filter matches) sent to a collector, oldest first: `loupe export --otlp`.
///
/// Exchanges are read from the store a batch at a time and each request is delivered (or given up on) before the
/// next is read, so memory holds one batch whatever the store's size, and a collector that is slow slows the
/// export instead of filling memory. The store is only read. A viewer's command, so it lives in the CLI: `LoupeOTLP`
/// is what an app exports with live, and reading a store would pull the readers (`LoupeQuery`) into every such app.
package enum OTLPStoreExport {
    /// What an export did: the spans' fate, and why the last failed send failed.
    package struct Report: Sendable {
        package var counts: OTLPDeliveryCounts
        package var lastFailure: String?
    }

    /// Sends the matching exchanges through `delivery`, `exchangesPerRequest` to a request; returns what became of
    /// their spans. Throws only what reading the store throws.
    package static func run(
        from store: SQLiteTraceStore, matching filter: TraceFilter?, through delivery: OTLPDelivery,
        exchangesPerRequest: Int
    ) async throws -> Report {
        let perRequest = max(1, exchangesPerRequest)
        var cursor = try store.batchCursor(matching: filter, batchSize: max(perRequest, 100))
        while !Task.isCancelled {
            let exchanges = try cursor.next()
            guard !exchanges.isEmpty else { break }
            var start = exchanges.startIndex
            while start < exchanges.endIndex, !Task.isCancelled {
                let end = min(start + perRequest, exchanges.endIndex)
                delivery.submit(OTLPTraceRequest.encode(exchanges[start..<end]))
                await delivery.drain()
                start = end
            }
        }
        delivery.abandon()
        return Report(counts: delivery.counts, lastFailure: delivery.outage.lastFailure)
    }

    /// As ``run(from:matching:through:exchangesPerRequest:)``, over HTTP to `endpoint` with the default retries.
    package static func run(
        from store: SQLiteTraceStore, to endpoint: OTLPEndpoint, matching filter: TraceFilter?, exchangesPerRequest: Int
    ) async throws -> Report {
        // The whole store is on disk: nothing is dropped for room, one request is held at a time.
        let delivery = OTLPDelivery(transport: OTLPHTTPTransport(endpoint: endpoint), settings: .init(capacityBytes: .max))
        return try await run(from: store, matching: filter, through: delivery, exchangesPerRequest: exchangesPerRequest)
    }

    /// `Sent 240 spans (80 exchanges) to URL in 3 requests, 2 retries`.
    package static func summary(_ counts: OTLPDeliveryCounts, endpoint: OTLPEndpoint) -> String {
        "Sent \(Quantity.count(counts.deliveredSpans, "span")) to \(endpoint.url.absoluteString) in "
            + "\(Quantity.count(counts.deliveredBatches, "request")), \(Quantity.count(counts.retries, "retry", plural: "retries"))"
    }

    /// `12 of 240 spans were not delivered (last failure: HTTP 503)`: the exit-1 line.
    package static func failureLine(_ report: Report) -> String {
        let counts = report.counts
        var reasons: [String] = []
        if counts.droppedSpans > 0 { reasons.append("\(counts.droppedSpans) dropped for room") }
        if let failure = report.lastFailure { reasons.append("last failure: \(failure)") }
        return "\(counts.undeliveredSpans) of \(Quantity.count(counts.submittedSpans, "span")) were not delivered"
            + (reasons.isEmpty ? "" : " (" + reasons.joined(separator: "; ") + ")")
    }
}
