import Foundation
import HTTPTypes
import Loupe
import LoupeOTLP
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing

/// The live exporter beside a real recorder, sending to `.ci/otlp-receiver.py` on 127.0.0.1:4318: the README's
/// lines word for word (`.ci/e2e-readme.sh` checks that they are in a test), so the port is the README's. What the
/// store holds and what the collector received are the same exchanges, attempts and ids.
@Suite(.enabled(if: OTLPReceiver.available, OTLPReceiver.skipReason))
struct LiveExportTests {
    struct GetItem: Endpoint {
        typealias Response = String
        let path: String
        var operationName: String { "getItem" }
    }

    @Test func whatTheRecorderStoresTheCollectorReceives() async throws {
        let receiver = try await OTLPReceiver.start(port: 4318)
        let store = InMemoryTraceStore()
        let calls = CallCounter()
        let transport = MockTransport { request, _, _ in
            // /flaky answers 503 to its first try: an exchange with two attempts.
            if request.path == "/flaky", calls.next() == 1 { return RawResponse(status: .serviceUnavailable, body: Data()) }
            return RawResponse(status: request.path == "/missing" ? .notFound : .ok, body: Data("\"ok\"".utf8))
        }

        // What the recorder stores also goes to an OpenTelemetry collector, off the request path:
        let exporter = OTLPExporter(endpoint: try OTLPEndpoint("http://127.0.0.1:4318/v1/traces"))
        let inspector = NetworkTraceInspector(store: store, configuration: .init(forwarders: [exporter]))

        var options = ResilienceOptions()
        options.retry = RetryPolicy(backoff: .exponential(base: .milliseconds(1)))
        let client = Client.resilient(baseURL: URL(string: "http://api.test")!, transport: transport, observer: inspector,
                                      options: options)
        for path in ["/items/1", "/flaky", "/missing", "/items/2"] { _ = try? await client.send(GetItem(path: path)) }
        await inspector.shutdown()  // writes the store, then lets the exporter deliver

        let stored = try store.exchanges(matching: nil, limit: 100)
        #expect(stored.count == 4)
        #expect(exporter.counts.deliveredSpans == OTLPTraceRequest.spanCount(of: stored))
        #expect(exporter.counts.undeliveredSpans == 0)
        let spans = try receiver.spans()
        #expect(spans.count == OTLPTraceRequest.spanCount(of: stored))
        for exchange in stored {
            let mine = spans.filter { ($0["attributes"] as? [String: Any])?["loupe.exchange_id"] as? String == exchange.id.uuidString }
            #expect(mine.count == 1 + exchange.attempts.count)
            // The trace id the request carried (`traceparent`), so the spans join the server's own trace.
            let traceID = try #require(exchange.traceContext?.traceID)
            #expect(mine.allSatisfy { $0["trace_id"] as? String == traceID })
            let root = try #require(mine.first { $0["parent_span_id"] as? String == "" })
            #expect(mine.filter { $0["parent_span_id"] as? String == root["span_id"] as? String }.count == exchange.attempts.count)
        }
        let flaky = try #require(stored.first { $0.url.hasSuffix("/flaky") })
        #expect(flaky.attempts.count == 2)
        #expect(spans.contains { ($0["attributes"] as? [String: Any])?["http.request.resend_count"] as? Int == 1 })
    }
}

/// Counts calls across the transport's concurrent closures.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    func next() -> Int { count.withLock { $0 += 1; return $0 } }
}
