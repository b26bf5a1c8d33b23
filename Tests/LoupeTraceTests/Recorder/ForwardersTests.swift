import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// The recorder's forwarders side by side (a live link and an OpenTelemetry exporter, say): each gets every batch
/// in stored form, and `shutdown()` finishes each once. Before, the recorder took one, and a second had to be
/// chained behind `OTLPExporter`.
@Suite struct ForwardersTests {
    /// Keeps what it is handed.
    final class Keeper: TraceForwarding {
        let batches = Mutex<[[TraceExchange]]>([])
        let finishes = Atomic<Int>(0)
        func forward(_ exchanges: [TraceExchange]) { batches.withLock { $0.append(exchanges) } }
        func finish() async { finishes.add(1, ordering: .relaxed) }
        var exchanges: [TraceExchange] { batches.withLock { $0.flatMap { $0 } } }
    }

    @Test func everyForwarderGetsWhatTheStoreHoldsAndIsFinishedOnce() async throws {
        let store = InMemoryTraceStore()
        let (link, exporter) = (Keeper(), Keeper())
        let absent: Keeper? = nil
        let inspector = NetworkTraceInspector(
            store: store,
            configuration: .init(redaction: RedactionPolicy(queryItemNames: ["token"]), forwarders: [link, absent, exporter]))
        #expect(inspector.configuration.forwarders.count == 2, "a nil forwarder is left out")
        let client = Fixture.client([.status(200), .status(404)], observer: inspector)
        _ = try? await client.execute(Fixture.request("https://api.example.test/a?token=s3cret"),
                                      options: RequestOptions(operation: "a"))
        _ = try? await client.execute(Fixture.request("https://api.example.test/b"),
                                      options: RequestOptions(operation: "b"))
        await inspector.shutdown()

        let stored = try store.exchanges(matching: nil, limit: 10)
        #expect(stored.count == 2)
        for forwarder in [link, exporter] {
            #expect(Set(forwarder.exchanges.map(\.id)) == Set(stored.map(\.id)))
            #expect(forwarder.exchanges.allSatisfy { !$0.url.contains("s3cret") }, "forwarded as stored: redacted")
            #expect(forwarder.finishes.load(ordering: .relaxed) == 1)
        }
    }
}
