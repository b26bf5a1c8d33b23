import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
@testable import loupe
import LoupeReplay
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing

/// `loupe replay` of recorded streams that cannot succeed, in process (a real SQLite store, in-process transports,
/// waits on a `ManualClock`): a server-sent event stream against a server that answers 500 or is down, and a
/// WebSocket the recorder kept only in part, which is refused before anything is sent.
@Suite("loupe replay: failing stream replays", .timeLimit(.minutes(5)))
struct StreamReplayFailureTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store holding `original`.
    static func store(with original: TraceExchange) throws -> (SQLiteTraceStore, TraceExchange, String) {
        let folder = NSTemporaryDirectory() + "loupe-cli-stream-replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try SQLiteTraceStore(path: folder + "/traces.sqlite")
        try store.write([original])
        return (store, try #require(try store.exchange(id: original.id)), folder)
    }

    /// A recorded event stream of two events.
    static var eventStream: TraceExchange {
        TraceExchange(
            id: UUID(), operation: "tokens", method: "GET", url: "http://api.example.test/events", startedAt: start, endedAt: start,
            outcome: .success, status: 200, responseHeaders: [TraceHeader(name: "Content-Type", value: "text/event-stream")],
            attempts: [TraceAttempt(number: 1, startedAt: start, status: 200)],
            stream: TraceStream(kind: .eventStream, messages: ["a", "b"].enumerated().map { index, data in
                TraceMessage(index: index, direction: .received, at: start, type: "message", size: 1, payload: Data(data.utf8),
                             eventID: String(index + 1))
            }, receivedCount: 2, byteCount: 2, closedBy: "server"))
    }

    /// Runs `plan` over a client whose transport is `transport` and whose clock is `clock`, recording into `store`.
    static func run(_ plan: ReplayPlan, store: SQLiteTraceStore, transport: any ClientTransport, clock: ManualClock,
                    webSocketTransport: (any WebSocketTransport)? = nil) async -> ReplayReport {
        let inspector = NetworkTraceInspector(store: store)
        var configuration = ClientConfiguration()
        configuration.clock = clock
        let client = Client(baseURL: URL(string: "http://api.example.test")!, transport: transport, observer: inspector,
                            configuration: configuration)
        let result = await ReplaySession.run(plan, client: client, recorder: inspector, store: store, webSocketTransport: webSocketTransport)
        await inspector.shutdown()
        return ReplayReport(plan: plan, result: result)
    }

    @Test("an event stream replayed against a server that answers 500 fails, recorded as a replay with its status")
    func eventStreamAgainstAnError() async throws {
        let (store, original, folder) = try Self.store(with: Self.eventStream)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let requests = Mutex(0)
        let transport = MockTransport { _, _, _ in
            requests.withLock { $0 += 1 }
            return RawResponse(status: .internalServerError, headerFields: [.contentType: "text/plain"], body: Data("boom".utf8))
        }
        let report = await Self.run(ReplayPlan(originals: [original]), store: store, transport: transport, clock: ManualClock())
        #expect(!report.succeeded && report.failedCount == 1)
        #expect(requests.withLock { $0 } == 1, "an error status ends the stream: no reconnection")
        #expect(report.text.contains("Statuses: 500 ×1") && report.text.contains("Errors: none"), "\(report.text)")
        let replay = try #require(try store.recent(limit: 5).compactMap { try store.exchange(id: $0.id) }.first { $0.replayOf == original.id })
        #expect(replay.status == 500 && replay.outcome == .httpError)

        // With --diff the status is a difference.
        var plan = ReplayPlan(originals: [original])
        plan.diff = true
        let compared = await Self.run(plan, store: store, transport: transport, clock: ManualClock())
        #expect(!compared.succeeded && compared.differingCount == 1)
        #expect(compared.text.contains { $0.contains("status: 200 → 500") }, "\(compared.text)")
    }

    @Test("an event stream replayed against a server that is down reconnects as the client does, then fails")
    func eventStreamAgainstADownServer() async throws {
        let (store, original, folder) = try Self.store(with: Self.eventStream)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let requests = Mutex(0)
        let transport = MockTransport { _, _, _ in
            requests.withLock { $0 += 1 }
            throw TransportError(.connectFailed, "connection refused")
        }
        let clock = ManualClock()
        let running = Task { await Self.run(ReplayPlan(originals: [original]), store: store, transport: transport, clock: clock) }
        // The client's default: up to 10 reconnections in a row without an event, 3 s apart.
        for _ in 0..<10 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(3))
        }
        let report = await running.value
        #expect(requests.withLock { $0 } == 11)
        #expect(clock.requestedSleeps == Array(repeating: .seconds(3), count: 10))
        #expect(!report.succeeded && report.failedCount == 1)
        #expect(report.text.contains { $0.contains("without an event") && $0.contains("connection refused") }, "\(report.text)")
    }

    @Test("an event stream replay interrupted mid-stream fails as a plain replay cut short does (issue 44, item 13)")
    func interruptedEventStream() async throws {
        let (store, original, folder) = try Self.store(with: Self.eventStream)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        let transport = StreamingMockTransport { _, _, _ in
            let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            continuation.yield(Data("data: a\n\n".utf8))  // and never ends
            open.yield()
            return StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), body: body)
        }
        let running = Task { await Self.run(ReplayPlan(originals: [original]), store: store, transport: transport, clock: ManualClock()) }
        var iterator = opened.makeAsyncIterator()
        await iterator.next()
        running.cancel()  // what Ctrl-C does to the session
        let report = await running.value
        #expect(!report.succeeded, "\(report.text)")
        #expect(!report.text.contains("Errors: none"), "\(report.text)")
    }

    /// Counts the connections it is asked to open (none must be).
    final class CountingWebSocketTransport: WebSocketTransport {
        let connections = Mutex(0)
        func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
            -> RawResponse {
            connections.withLock { $0 += 1 }
            throw TransportError(.connectFailed, "not expected")
        }
    }

    @Test("a WebSocket the recorder kept only in part is refused before anything is sent", arguments: [false, true])
    func partialWebSocket(cutPayload: Bool) async throws {
        func message(_ index: Int, _ direction: MessageDirection, truncated: Bool = false) -> TraceMessage {
            TraceMessage(index: index, direction: direction, at: Self.start, type: "text", size: truncated ? 100_000 : 2,
                         payload: Data("m\(index)".utf8), isTruncated: truncated)
        }
        let stream = cutPayload
            ? TraceStream(kind: .webSocket, messages: [message(0, .sent, truncated: true), message(1, .received)],
                          sentCount: 1, receivedCount: 1, byteCount: 100_002, closeCode: 1000, closedBy: "server")
            : TraceStream(kind: .webSocket, messages: [message(0, .sent), message(1, .received), message(9, .received)],
                          sentCount: 4, receivedCount: 6, omittedCount: 7, byteCount: 20, closeCode: 1000, closedBy: "server")
        let original = TraceExchange(
            id: UUID(), operation: "chat", method: "GET", url: "http://api.example.test/chat", startedAt: Self.start,
            endedAt: Self.start, outcome: .success, status: 101, stream: stream)
        let (store, stored, folder) = try Self.store(with: original)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let webSocket = CountingWebSocketTransport()
        let http = MockTransport { _, _, _ in RawResponse(head: HTTPResponse(status: .notFound)) }
        let report = await Self.run(ReplayPlan(originals: [stored]), store: store, transport: http, clock: ManualClock(),
                                    webSocketTransport: webSocket)
        #expect(webSocket.connections.withLock { $0 } == 0)
        #expect(!report.succeeded && report.failedCount == 1)
        let expected = cutPayload
            ? "the client's message #0 was recorded only in part (2 of 100000 bytes); the WebSocket cannot be replayed faithfully"
            : "the recording kept 1 of the client's 4 messages (past the recorder's cap); the WebSocket cannot be replayed faithfully"
        #expect(report.text.contains { $0.contains(expected) }, "\(report.text)")
    }
}
