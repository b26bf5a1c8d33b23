import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
import LoupeTrace
import LoupeWebSocket
import Testing

/// The demo's WebSocket feed (`/ticker`) through the demo's own client and traffic, against the real server and a
/// real SQLite store: the greeting, the subscription, every tick in order with its snapshots, a ping, and a close by
/// the client, or every third session by the server (1011), one recorded exchange each.
@Suite(.timeLimit(.minutes(5)))
struct DemoTickerTests {
    @Test func threeSessionsRecordEveryMessageAndTheThirdIsClosedByTheServer() async throws {
        try await withTemporaryDirectory { folder in
            let store = try SQLiteTraceStore(path: folder.appendingPathComponent("demo.sqlite").path, bounds: nil)
            let inspector = NetworkTraceInspector(store: store)
            let transport = AsyncHTTPClientTransport()
            var sessions: [DemoTraffic.TickerSession] = []
            try await withDemoServer { baseURL in
                let client = DemoClient.make(baseURL: baseURL, observer: inspector, transport: transport)
                let traffic = DemoTraffic(client: client)
                for _ in 0..<3 { sessions.append(await traffic.streamTicker(over: NIOWebSocketTransport(), symbol: "ACME")) }
            }
            try await transport.shutdown()
            await inspector.flush()

            let all = (1...FlakyAPI.tickCount).map { FlakyAPI.tick($0, symbol: "ACME") }
            for session in sessions.prefix(2) {
                #expect(session.error == nil && session.ticks == all && session.snapshots == FlakyAPI.tickCount / 6)
                #expect(session.close?.code == 1000 && session.close?.byClient == true)
            }
            let cut = sessions[2]
            #expect(cut.ticks == Array(all.prefix(FlakyAPI.tickerRestartAfter)) && cut.snapshots == 1)
            #expect(cut.close?.code == 1011 && cut.close?.reason == "feed restarting" && cut.close?.byClient == false)

            let exchanges = try store.recent(limit: 10).compactMap { try store.exchange(id: $0.id) }
                .sorted { $0.startedAt < $1.startedAt }
            try #require(exchanges.count == 3)
            #expect(exchanges.allSatisfy { $0.operation == "ticker" && $0.stream?.kind == .webSocket })
            let first = try #require(exchanges[0].stream)
            // ↓ hello, 24 ticks, 4 snapshots, the pong and the close's answer; ↑ subscribe, ping, close.
            let received = first.messages.filter { $0.direction == .received }
            #expect(received.first.map { String(decoding: $0.payload, as: UTF8.self) } == FlakyAPI.tickerHello)
            #expect(received.filter { $0.type == "text" }.count == 1 + FlakyAPI.tickCount)
            #expect(received.filter { $0.type == "binary" }.count == FlakyAPI.tickCount / 6)
            let sent = first.messages.filter { $0.direction == .sent }.map(\.type)
            #expect(sent == ["text", "ping", "close"], "\(sent)")
            #expect(first.closeCode == 1000 && first.closedBy == "client")
            let last = try #require(exchanges[2].stream)
            #expect(last.closeCode == 1011 && last.closeReason == "feed restarting" && last.closedBy == "server")
            await inspector.shutdown()
            try store.close()
        }
    }
}
