import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
import LoupeTrace
import Testing

/// The demo's model-like stream (`/completions`) through the demo's own client and traffic: every token in order,
/// paced (a slow first token), and the third stream cut mid-way and resumed with `Last-Event-ID`, one exchange each.
@Suite(.timeLimit(.minutes(5)))
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
            try #require(exchanges.count == 3)
            #expect(exchanges.allSatisfy { $0.operation == "completion" && $0.outcome == .success })
            let ids = (1...FlakyAPI.completionTokens.count).map { String($0) }
            for exchange in exchanges {
                #expect(exchange.stream?.kind == .eventStream && exchange.stream?.messages.map(\.eventID) == ids, "no token twice")
                // After its last token each stream reconnects with Last-Event-ID 21 and is answered 204.
                let last = exchange.events.last { $0.kind == .streamReconnect }
                #expect(last?.attributes["reason"] == "ended" && last?.attributes["lastEventID"] == "21")
            }
            // The third was dropped after token 10 and resumed from it, after the server's retry. (A loaded machine
            // may add reconnects of its own to any stream: only these are checked.)
            let cut = exchanges[2].events.filter { $0.kind == .streamReconnect && $0.attributes["reason"] != "ended" }
            #expect(cut.contains { $0.attributes["lastEventID"] == "10" && $0.attributes["delayMs"] == "300" }, "\(exchanges[2].events)")
            #expect(!exchanges[0].events.contains { $0.kind == .streamReconnect && $0.attributes["lastEventID"] == "10" })
            try store.close()
        }
    }
}
