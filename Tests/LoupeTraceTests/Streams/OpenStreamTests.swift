import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// The recorder's open streams: listed while they run (not yet in the store), with their counts and a redacted URL,
/// and gone once they end.
@Suite("Open streams")
struct OpenStreamTests {
    @Test func aStreamIsListedWhileItRunsWithItsCountsAndARedactedURL() async throws {
        let inspector = NetworkTraceInspector(store: InMemoryTraceStore())
        let (chunks, serve) = AsyncThrowingStream.makeStream(of: Data.self)
        let calls = Mutex(0)
        let transport = StreamingMockTransport { _, _, _ in
            // The first connection is the stream the test feeds; the reconnection after it is told to stop (204).
            let first = calls.withLock { $0 += 1; return $0 == 1 }
            let body = first ? chunks : AsyncThrowingStream { $0.finish() }
            return StreamedResponse(
                head: HTTPResponse(status: first ? .ok : .noContent, headerFields: [.contentType: "text/event-stream"]), body: body)
        }
        let client = Client(baseURL: URL(string: "https://api.example.test")!, transport: transport, observer: inspector)
        let request = Fixture.request("https://api.example.test/events?api_key=QK-7781-secret")
        #expect(inspector.openStreams.isEmpty)

        let (arrivals, arrived) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            var count = 0
            for try await _ in client.events(request, options: RequestOptions(operation: "completion"),
                                             stream: EventStreamOptions(reconnectDelay: .zero)) {
                count += 1
                arrived.yield(count)
            }
            arrived.finish()
        }
        serve.yield(Data("data: one\n\ndata: two\n\ndata: three\n\n".utf8))
        var iterator = arrivals.makeAsyncIterator()
        while let count = await iterator.next(), count < 3 {}

        let open = inspector.openStreams
        try #require(open.count == 1)
        #expect(open[0].kind == .eventStream && open[0].operation == "completion" && open[0].method == "GET")
        #expect(open[0].received == 3 && open[0].sent == 0)
        #expect(!open[0].url.contains("QK-7781-secret") && open[0].url.contains("api_key="), "\(open[0].url)")

        serve.finish()
        try await reader.value
        await inspector.flush()
        #expect(inspector.openStreams.isEmpty, "an ended stream is a stored exchange, not an open one")
        await inspector.shutdown()
    }
}
