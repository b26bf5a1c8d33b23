import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeTrace
import Testing

/// The demo's model-like stream (`/completions`) through the demo's own client and traffic: every token in order,
/// paced (a slow first token), and the third stream cut mid-way and resumed with `Last-Event-ID`, one exchange each.
@Suite(.timeLimit(.minutes(2)))
struct DemoCompletionTests {
    @Test func threeStreamsGiveEveryTokenInOrderAndTheCutOneResumesWithLastEventID() async throws {
        try await withTemporaryDirectory { folder in
            let store = try SQLiteTraceStore(path: folder.appendingPathComponent("demo.sqlite").path, bounds: nil)
            let inspector = NetworkTraceInspector(store: store)
            let transport = AsyncHTTPClientTransport()
            try await withDemoServer { baseURL in
                let client = DemoClient.make(baseURL: baseURL, observer: inspector, transport: transport)
                let traffic = DemoTraffic(client: client, completionInterval: .milliseconds(1))
                for _ in 0..<3 {
                    #expect(await traffic.streamCompletion() == FlakyAPI.completionTokens)
                }
            }
            try await transport.shutdown()
            await inspector.shutdown()

            let exchanges = try store.recent(limit: 10).compactMap { try store.exchange(id: $0.id) }
                .sorted { $0.startedAt < $1.startedAt }
            #expect(exchanges.count == 3 && exchanges.allSatisfy { $0.operation == "completion" && $0.outcome == .success })
            let reconnects = exchanges.map { $0.events.filter { $0.kind == .streamReconnect } }
            // Each stream reconnects once after its last token (answered 204); the cut one once more, mid-way.
            #expect(reconnects.map(\.count) == [1, 1, 2])
            #expect(reconnects[2].first?.attributes["delayMs"] == "300", "the server's retry")
            let cut = try #require(exchanges.last?.stream)
            #expect(cut.kind == .eventStream && cut.receivedCount == FlakyAPI.completionTokens.count)
            #expect(cut.messages.map(\.eventID) == (1...FlakyAPI.completionTokens.count).map { String($0) }, "no token twice")
            let first = try #require(exchanges.first?.stream?.messages)
            #expect(first[1].at.timeIntervalSince(first[0].at) < 0.2, "tokens come tens of ms apart")
            try store.close()
        }
    }
}
