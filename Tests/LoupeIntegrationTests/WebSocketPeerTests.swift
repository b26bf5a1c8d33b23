import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeWebSocket
import Testing

/// `client.webSocket` over hummingbird-websocket's client against the `websockets` package's server
/// (.ci/ws-server.py): echo, fragmented messages, ping, close codes both ways, a server that drops, auth headers on
/// the handshake; recorded message by message into a real SQLite store.
@Suite(.serialized, .enabled(if: PythonPeer.available, PythonPeer.skipReason), .timeLimit(.minutes(5)))
struct WebSocketPeerTests {
    final class Recording {
        let folder: URL
        let store: SQLiteTraceStore
        let inspector: NetworkTraceInspector
        let peer: PythonPeer

        init() async throws {
            peer = try await PythonPeer.start("ws-server.py")
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-ws-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path, bounds: nil)
            inspector = NetworkTraceInspector(store: store)
        }

        func client(middlewares: [any ClientMiddleware] = []) -> Client {
            Client(baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, transport: MockTransport { _, _, _ in
                RawResponse(head: HTTPResponse(status: .notFound))
            }, middlewares: middlewares, observer: inspector)
        }

        func request(_ path: String) -> HTTPRequest {
            HTTPRequest(method: .get, url: URL(string: "ws://127.0.0.1:\(peer.port)\(path)")!)
        }

        /// The one recorded exchange, once the recorder has written it.
        func trace() async throws -> TraceExchange {
            await inspector.flush()
            let summary = try #require(try store.recent(limit: 1).first)
            return try #require(try store.exchange(id: summary.id))
        }

        func finish() async throws {
            await inspector.shutdown()
            try store.close()
            peer.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Reads until the connection ends.
    static func drain(_ socket: WebSocket) async throws -> [WebSocketMessage] {
        var messages: [WebSocketMessage] = []
        for try await message in socket.messages { messages.append(message) }
        return messages
    }

    /// The exchange as written: it ends after the close handshake, a moment after the messages end, so this waits
    /// for the socket's exchange to end and the recorder to write it, not on a clock.
    static func waitForExchange(_ recording: Recording, _ socket: WebSocket) async throws -> TraceExchange {
        await socket.exchangeEnded()
        await recording.inspector.flush()
        guard let summary = try recording.store.recent(limit: 1).first, let trace = try recording.store.exchange(id: summary.id)
        else { throw PythonPeer.PeerError("the WebSocket exchange was never recorded") }
        return trace
    }

    @Test func echoTextAndBinaryThenTheClientClosesWithACodeAndReason() async throws {
        let recording = try await Recording()
        let socket = try await recording.client().webSocket(recording.request("/echo"), transport: NIOWebSocketTransport())
        let big = String(repeating: "é", count: 40_000)  // 80,000 bytes: sent in fragments, echoed back whole
        try socket.send("hello")
        try socket.send(Data([1, 2, 3]))
        try socket.send(big)
        try socket.ping(Data("p".utf8))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        #expect(try await iterator.next() == .binary(Data([1, 2, 3])))
        #expect(try await iterator.next() == .text(big))
        try socket.close(code: 4000, reason: "done here")
        #expect(try await iterator.next() == nil)
        #expect(socket.closeInfo?.code == 4000 && socket.closeInfo?.byClient == true)

        let trace = try await Self.waitForExchange(recording, socket)
        let stream = try #require(trace.stream)
        #expect(stream.kind == .webSocket && trace.status == 101 && trace.outcome == .success)
        #expect(stream.messages.filter { $0.direction == .sent }.map(\.type) == ["text", "binary", "text", "ping", "close"])
        #expect(stream.messages.filter { $0.direction == .received }.map(\.size) == [5, 3, 80_000])
        #expect(stream.closedBy == "client" && stream.closeCode == 4000 && stream.closeReason == "done here")
        try await recording.finish()
    }

    @Test func fragmentedMessagesArriveReassembled() async throws {
        let recording = try await Recording()
        let socket = try await recording.client().webSocket(recording.request("/fragmented"), transport: NIOWebSocketTransport())
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text(String(repeating: "abc", count: 1000)))
        #expect(try await iterator.next() == .binary(Data([0, 1, 2, 3, 4])))
        try socket.close()
        #expect(try await iterator.next() == nil)
        try await recording.finish()
    }

    @Test func theServersPingIsAnsweredAndItsCloseCodeRecorded() async throws {
        let recording = try await Recording()
        let pinged = try await recording.client().webSocket(recording.request("/ping"), transport: NIOWebSocketTransport())
        var iterator = pinged.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("pong: " + Data("are you there".utf8).map { String(format: "%02x", $0) }.joined()))
        try pinged.close()
        _ = try await iterator.next()
        try await recording.finish()

        let closing = try await Recording()
        let socket = try await closing.client().webSocket(closing.request("/close"), transport: NIOWebSocketTransport())
        #expect(try await Self.drain(socket).isEmpty)
        #expect(socket.closeInfo == WebSocketClose(code: 4001, reason: "bye from server", byClient: false))
        let trace = try await Self.waitForExchange(closing, socket)
        #expect(trace.stream?.closedBy == "server" && trace.stream?.closeCode == 4001)
        try await closing.finish()
    }

    @Test func aCloseTheServerNeverAnswersEndsTheConnectionAfterTheCloseTimeout() async throws {
        let recording = try await Recording()
        let socket = try await recording.client().webSocket(
            recording.request("/unanswered"), transport: NIOWebSocketTransport(), webSocket: WebSocketOptions(closeTimeout: .milliseconds(300)))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("not listening"))
        try socket.close(code: 1000, reason: "")
        #expect(try await iterator.next() == nil, "the wait for the server's answer is bounded")
        #expect(socket.closeInfo == WebSocketClose(code: 1006, reason: "no close from the server within 300 ms", byClient: true))
        let trace = try await Self.waitForExchange(recording, socket)
        #expect(trace.stream?.closedBy == "client" && trace.stream?.closeCode == 1006)
        try await recording.finish()
    }

    @Test func aServerThatDropsEndsTheStreamWith1006() async throws {
        let recording = try await Recording()
        let socket = try await recording.client().webSocket(recording.request("/drop"), transport: NIOWebSocketTransport())
        var received: [WebSocketMessage] = []
        do {
            for try await message in socket.messages { received.append(message) }
        } catch {}
        #expect(received == [.text("going")])
        #expect(socket.closeInfo?.code == 1006 && socket.closeInfo?.byClient == false)
        let trace = try await Self.waitForExchange(recording, socket)
        #expect(trace.stream?.receivedCount == 1 && trace.stream?.closeCode == 1006)
        try await recording.finish()
    }

    @Test func theHandshakeCarriesTheMiddlewaresHeadersAndTheRecordRedactsThem() async throws {
        let recording = try await Recording()
        let auth = HeaderMiddleware(name: .authorization, value: "Bearer WS-7788-token")
        let socket = try await recording.client(middlewares: [auth]).webSocket(recording.request("/headers"), transport: NIOWebSocketTransport())
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("Bearer WS-7788-token"))
        try socket.close()
        _ = try await iterator.next()
        let trace = try await Self.waitForExchange(recording, socket)
        let payload = String(decoding: trace.stream?.messages.first { $0.direction == .received }?.payload ?? Data(), as: UTF8.self)
        #expect(!payload.contains("WS-7788-token"), "the token the server echoed is scrubbed by value")
        #expect(!trace.requestHeaders.contains { $0.value.contains("WS-7788-token") })
        try await recording.finish()
    }

    @Test func aRefusedHandshakeIsAClientErrorAndNoConnection() async throws {
        let client = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: MockTransport { _, _, _ in
            RawResponse(head: HTTPResponse(status: .notFound))
        })
        await #expect(throws: ClientError.self) {
            _ = try await client.webSocket(HTTPRequest(method: .get, url: URL(string: "ws://127.0.0.1:9/none")!),
                                           transport: NIOWebSocketTransport())
        }
    }
}

/// Sets one header on every request: what an auth middleware does to the handshake.
struct HeaderMiddleware: ClientMiddleware {
    let name: HTTPField.Name
    let value: String

    nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                   next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse) async throws -> RawResponse {
        var request = request
        request.headerFields[name] = value
        return try await next(request, body, context)
    }
}
