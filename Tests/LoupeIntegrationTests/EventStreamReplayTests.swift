import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
@testable import LoupeReplay
import LoupeTrace
import Testing

/// A recorded server-sent event stream (the demo's `/completions`) replayed against the real server as a stream:
/// recorded event by event as a replay of the original, reconnecting when the server cuts it, and compared with the
/// original by its events.
@Suite(.timeLimit(.minutes(5)))
struct EventStreamReplayTests {
    @Test func aReplayIsAStreamThatReconnectsAndDiffsByEvent() async throws {
        try await withTemporaryDirectory { folder in
            let store = try SQLiteTraceStore(path: folder.appendingPathComponent("sse.sqlite").path, bounds: nil)
            let inspector = NetworkTraceInspector(store: store)
            let transport = AsyncHTTPClientTransport()
            try await withDemoServer { baseURL in
                let client = DemoClient.make(baseURL: baseURL, observer: inspector, transport: transport)
                // Fresh stream 1: recorded whole.
                #expect(await DemoTraffic(client: client).streamCompletion() == FlakyAPI.completionTokens)
                await inspector.flush()
                let original = try #require(try store.recent(limit: 1).first.flatMap { try store.exchange(id: $0.id) })
                #expect(ReplaySafety.reasonToConfirm(original) == nil, "a GET stream is safe to repeat")

                // Fresh streams 2 and 3: the server cuts the third after 10 tokens; the replay resumes it.
                let replayer = TraceReplayer(client: client)
                var replays: [TraceExchange] = []
                for _ in 0..<2 {
                    let (id, status) = try await replayer.replayAny(original)
                    #expect(status == 200)
                    await inspector.flush()
                    let replayID = try #require(id)
                    replays.append(try #require(try store.exchange(id: replayID)))
                }
                for replay in replays {
                    #expect(replay.replayOf == original.id && replay.stream?.kind == .eventStream)
                    #expect(replay.stream?.receivedCount == FlakyAPI.completionTokens.count)
                    let diff = ExchangeDiff(original: original, replay: replay)
                    #expect(diff.isSame, "\(diff.differences.map(\.description))")
                }
                #expect(replays[1].events.contains { $0.kind == .streamReconnect && $0.attributes["lastEventID"] == "10" },
                        "the cut replay reconnected with Last-Event-ID")

                // A different answer shows by event.
                var changed = replays[0]
                changed.stream?.messages[3].payload = Data(" tokens".utf8)
                #expect(ExchangeDiff(original: original, replay: changed).differences.map(\.description)
                    == ["message[3]: token  token → token  tokens"])
            }
            try await transport.shutdown()
            await inspector.shutdown()
            try store.close()
        }
    }
}
