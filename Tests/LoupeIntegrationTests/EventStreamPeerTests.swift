import Foundation
import LoupeQuery
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeTesting
import LoupeTrace
import Testing

/// `client.events` over AsyncHTTPClient against an `sse-starlette` app on uvicorn (.ci/sse-server.py): ids, the
/// server's retry, two-line data, and a stream cut mid-event that the client resumes with `Last-Event-ID`; all
/// recorded into a real SQLite store.
@Suite(.serialized, .enabled(if: PythonPeer.available, PythonPeer.skipReason), .timeLimit(.minutes(5)))
struct EventStreamPeerTests {
    @Test func aStreamCutMidEventResumesAfterTheLastWholeEventAndIsRecordedAsOneExchange() async throws {
        let peer = try await PythonPeer.start("sse-server.py")
        defer { peer.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-sse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path, bounds: nil)
        let inspector = NetworkTraceInspector(store: store)
        let transport = AsyncHTTPClientTransport()
        let client = Client(baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, transport: transport, observer: inspector)
        let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(peer.port)/events?count=6&cut=3")!)

        var events: [ServerSentEvent] = []
        for try await event in client.events(request, options: RequestOptions(operation: "tokens")) { events.append(event) }
        try await transport.shutdown()
        await inspector.shutdown()

        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6"], "event 4, cut in half, arrives whole once")
        #expect(events.allSatisfy { $0.type == "token" })
        #expect(events[1].data == "token 2\nsecond line 2" && events[0].data == "token 1")
        // Asked without `Data(contentsOf:)`, which blocks a thread of the cooperative pool.
        let (seenBody, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(peer.port)/seen")!)
        let seen = try JSONSerialization.jsonObject(with: seenBody) as? [Any]
        #expect(seen?.map { $0 as? String } == [nil, "3", "6"], "resumed after 3 (not the cut 4), then told to stop at 6")

        let summary = try #require(try store.recent(limit: 5).first)
        let trace = try #require(try store.exchange(id: summary.id))
        #expect(try store.count() == 1 && trace.attempts.count == 3 && trace.outcome == .success && trace.status == 204)
        let stream = try #require(trace.stream)
        #expect(stream.kind == .eventStream && stream.receivedCount == 6 && stream.messages.map(\.eventID) == ["1", "2", "3", "4", "5", "6"])
        #expect(trace.events.filter { $0.kind == .streamReconnect }.count == 2)
        // The server says `retry: 200`; a server's delay is held to at least 250 ms (DECISIONS 121: `retry: 0`
        // made a reconnect storm), so the recorded wait is the floor.
        #expect(trace.events.first { $0.kind == .streamReconnect }?.attributes["delayMs"] == "250", "the server's retry, floored")
        try store.close()
    }

    @Test func aResponseThatIsNotAnEventStreamFails() async throws {
        let peer = try await PythonPeer.start("sse-server.py")
        defer { peer.stop() }
        let transport = AsyncHTTPClientTransport()
        let client = Client(baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, transport: transport)
        let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(peer.port)/plain")!)
        let error = await #expect(throws: ClientError.self) {
            for try await _ in client.events(request) {}
        }
        #expect(error?.underlyingError is NotAnEventStreamError)
        try await transport.shutdown()
    }
}
