import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
@testable import LoupeReplay
import LoupeTrace
import LoupeWebSocket
import Testing

/// A recorded WebSocket (the demo's `/ticker`) replayed against the real server: the handshake through the client,
/// the client's recorded messages sent again (subscribe, ping, close), the server's recorded as a new exchange
/// marked as a replay, and compared with the original.
@Suite(.timeLimit(.minutes(5)))
struct WebSocketReplayTests {
    @Test func aReplaySendsTheClientsMessagesAndTheDiffSeesTheServersClose() async throws {
        try await withTemporaryDirectory { folder in
            let store = try SQLiteTraceStore(path: folder.appendingPathComponent("ws.sqlite").path, bounds: nil)
            let inspector = NetworkTraceInspector(store: store)
            let transport = AsyncHTTPClientTransport()
            try await withDemoServer { baseURL in
                let client = DemoClient.make(baseURL: baseURL, observer: inspector, transport: transport)
                // Connection 1: recorded, closed by the client after every tick.
                let session = await DemoTraffic(client: client).streamTicker(over: NIOWebSocketTransport(), symbol: "ACME")
                #expect(session.close?.code == 1000)
                await inspector.flush()
                let original = try #require(try store.recent(limit: 1).first.flatMap { try store.exchange(id: $0.id) })
                #expect(ReplaySafety.reasonToConfirm(original) == "a WebSocket replay sends 1 recorded client message again")

                let replayer = TraceReplayer(client: client, webSocketTransport: NIOWebSocketTransport(), pacing: .fast)
                // Connection 2: the same answer. Connection 3: the server restarts its feed after 10 ticks.
                var replays: [TraceExchange] = []
                for _ in 0..<2 {
                    let (id, status) = try await replayer.replayAny(original)
                    #expect(status == 101)
                    await inspector.flush()
                    let replayID = try #require(id)
                    replays.append(try #require(try store.exchange(id: replayID)))
                }
                func sent(_ exchange: TraceExchange) -> [String]? {
                    exchange.stream?.messages.filter { $0.direction == .sent }.map(\.type)
                }
                #expect(replays.allSatisfy { $0.replayOf == original.id && $0.stream?.kind == .webSocket })
                #expect(sent(replays[0]) == ["text", "ping", "close"], "the recorded subscribe, ping and close were sent again")
                // Each client message waits for the server's messages the recording has before it: the restarted
                // feed closed after 10 ticks, before the ping's turn, so only the subscription went out.
                #expect(sent(replays[1]) == ["text"])
                let same = ExchangeDiff(original: original, replay: replays[0])
                #expect(same.isSame, "\(same.differences.map(\.description))")
                let cut = ExchangeDiff(original: original, replay: replays[1]).differences.map(\.description)
                #expect(cut.first == "messages: 29 → 12", "\(cut)")
                #expect(cut.last == "messages: closed by the client 1000 → closed by the server 1011", "\(cut)")

                // Without a WebSocket transport the replay says so, and nothing is sent.
                await #expect(throws: TraceReplayer.ReplayError.self) { _ = try await TraceReplayer(client: client).replayAny(original) }
            }
            try await transport.shutdown()
            await inspector.shutdown()
            try store.close()
        }
    }
}
