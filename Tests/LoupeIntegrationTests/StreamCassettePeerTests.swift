import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeFormats
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeWebSocket
import Testing

/// Stream cassettes against peers nobody here wrote: an `sse-starlette` stream cut mid-event and resumed with
/// `Last-Event-ID`, and a conversation with the `websockets` package's echo server, each recorded over the real
/// transports into a HAR cassette, then played back from the file with the server stopped.
@Suite(.serialized, .enabled(if: PythonPeer.available, PythonPeer.skipReason), .timeLimit(.minutes(5)))
struct StreamCassettePeerTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-stream-cassette-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func anEventStreamCutAndResumedIsRecordedThenPlayedWithTheServerGone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.har").path
        let peer = try await PythonPeer.start("sse-server.py")
        let base = URL(string: "http://127.0.0.1:\(peer.port)")!
        let request = HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(peer.port)/events?count=6&cut=3")!)

        let transport = AsyncHTTPClientTransport()
        let recorder = try Cassette(path: path)
        var recorded: [ServerSentEvent] = []
        for try await event in Client(baseURL: base, transport: recorder.transport(upstream: transport)).events(request) {
            recorded.append(event)
        }
        await recorder.streamsEnded()
        try await transport.shutdown()
        peer.stop()
        #expect(recorded.map(\.id) == ["1", "2", "3", "4", "5", "6"] && recorded[1].data == "token 2\nsecond line 2")

        let interaction = try #require(try HARImporter(redaction: .none).exchanges(contentsOf: URL(fileURLWithPath: path)).first)
        #expect(interaction.attempts.map(\.status) == [200, 200, 204], "cut, resumed, told to stop")
        #expect(interaction.attempts.map { $0.notes["lastEventID"] } == [nil, "3", "6"])

        let player = try Cassette(path: path, mode: .none)
        var played: [ServerSentEvent] = []
        for try await event in Client(baseURL: base, transport: player.transport()).events(request) { played.append(event) }
        #expect(played == recorded)
        await player.streamsEnded()
        try player.assertAllPlayed()
    }

    @Test func aWebSocketConversationIsRecordedThenPlayedWithTheServerGone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("echo.har").path
        let peer = try await PythonPeer.start("ws-server.py")
        let base = URL(string: "http://127.0.0.1:\(peer.port)")!
        let request = HTTPRequest(method: .get, url: URL(string: "ws://127.0.0.1:\(peer.port)/echo")!)
        let http = MockTransport { _, _, _ in RawResponse(head: HTTPResponse(status: .notFound)) }

        func converse(_ transport: any WebSocketTransport) async throws -> ([WebSocketMessage], WebSocketClose?) {
            let socket = try await Client(baseURL: base, transport: http).webSocket(request, transport: transport)
            var messages = socket.messages.makeAsyncIterator()
            var received: [WebSocketMessage] = []
            try socket.send("hello")
            if let echo = try await messages.next() { received.append(echo) }
            try socket.send(Data([0, 1, 2, 255]))
            if let echo = try await messages.next() { received.append(echo) }
            // The echo server closes with the code and reason it is sent.
            try socket.send("close 4003 enough")
            while let message = try await messages.next() { received.append(message) }
            await socket.exchangeEnded()
            return (received, socket.closeInfo)
        }

        let recorder = try Cassette(path: path)
        let recorded = try await converse(recorder.webSocketTransport(upstream: NIOWebSocketTransport()))
        peer.stop()
        #expect(recorded.0 == [.text("hello"), .binary(Data([0, 1, 2, 255]))])
        #expect(recorded.1 == WebSocketClose(code: 4003, reason: "enough", byClient: false))

        let player = try Cassette(path: path, mode: .none)
        let played = try await converse(player.webSocketTransport())
        #expect(played.0 == recorded.0 && played.1 == recorded.1)
        await player.streamsEnded()
        try player.assertAllPlayed()
    }
}
