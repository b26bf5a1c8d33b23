import Foundation
import HTTPTypes
import Loupe
import LoupeFormats
import LoupeQuery
import LoupeReplay
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// Streams in cassettes: a server-sent event stream and a WebSocket conversation recorded from in-process
/// transports into a HAR file, then played back from that file with no upstream; the paths where playback departs
/// from the recording; a recording cut by the recorder's cap refused. Every wait is on a `ManualClock`.
@Suite(.timeLimit(.minutes(5)))
struct CassetteStreamTests {
    static let url = URL(string: "https://api.example.com/v1/tokens")!
    static let request = HTTPRequest(method: .get, url: url)
    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// A HAR path in a new folder of its own.
    static func path(_ name: String = "stream", as format: String = "har") -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-cassette-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("\(name).\(format)").path
    }

    static func client(_ transport: any ClientTransport, clock: ManualClock) -> Client {
        var configuration = ClientConfiguration()
        configuration.clock = clock
        return Client(baseURL: URL(string: "https://api.example.com")!, transport: transport, configuration: configuration)
    }

    /// A `text/event-stream` 200 whose body is `chunks`, then ends (or breaks with `error`).
    static func stream(_ chunks: [String], error: (any Error)? = nil, status: HTTPResponse.Status = .ok) -> StreamedResponse {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
        continuation.finish(throwing: error)
        return StreamedResponse(head: HTTPResponse(status: status, headerFields: [.contentType: "text/event-stream"]), body: body)
    }

    /// A server answering its connections in turn, keeping each request.
    final class Server: Sendable {
        let answers: [@Sendable () -> StreamedResponse]
        let requests = Mutex<[HTTPRequest]>([])
        init(_ answers: [@Sendable () -> StreamedResponse]) { self.answers = answers }
        var transport: StreamingMockTransport {
            StreamingMockTransport { [self] request, _, _ in
                let index = requests.withLock { $0.append(request); return $0.count - 1 }
                return answers[min(index, answers.count - 1)]()
            }
        }
        var lastEventIDs: [String?] { requests.withLock { $0.map { $0.headerFields[CassetteStreamTests.lastEventID] } } }
    }

    /// Reads every event of `client.events`, advancing `clock` by each of `waits` as the client sleeps.
    static func read(_ client: Client, clock: ManualClock, waits: [Duration]) async throws -> [ServerSentEvent] {
        let reader = Task {
            var seen: [ServerSentEvent] = []
            for try await event in client.events(request) { seen.append(event) }
            return seen
        }
        for wait in waits {
            await clock.waitForSleepers(1)
            clock.advance(by: wait)
        }
        return try await reader.value
    }

    // MARK: Server-sent events

    @Test(arguments: ["har", "sqlite"])
    func anEventStreamWithIDsRetryMultiLineDataAndAReconnectPlaysBackAsRecorded(format: String) async throws {
        let path = Self.path(as: format)
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let server = Server([
            { Self.stream(["\u{FEFF}retry: 1500\nid: 1\nevent: token\ndata: a\ndata: b\n\n", "id: 2\ndata: c\n\n: note\nid: 3\nda"],
                          error: TransportError(.connectionReset, "peer reset")) },
            { Self.stream(["retry: 700\n\n", "event: token\ndata: d\r\n\r\nid\ndata: no id\n\n"]) },
            { Self.stream([], status: .noContent) },
        ])
        let recordingClock = ManualClock()
        let recorder = try Cassette(path: path)
        let recorded = try await Self.read(Self.client(recorder.transport(upstream: server.transport), clock: recordingClock),
                                           clock: recordingClock, waits: [.milliseconds(1500), .milliseconds(700)])
        await recorder.streamsEnded()
        #expect(recorded == [
            ServerSentEvent(type: "token", data: "a\nb", id: "1", retry: 1500), ServerSentEvent(data: "c", id: "2"),
            ServerSentEvent(type: "token", data: "d", id: "2"), ServerSentEvent(data: "no id", id: nil),
        ])
        #expect(server.lastEventIDs == [nil, "2", nil])

        // One interaction in the file: the stream, with its three connections.
        let stored = try Self.stored(path)
        let interaction = try #require(stored.first)
        #expect(stored.count == 1 && interaction.attempts.map(\.status) == [200, 200, 204])
        #expect(interaction.events.filter { $0.kind.rawValue == "stream-retry" }.map { $0.attributes["retryMs"] } == ["1500", "700"])
        #expect(interaction.stream?.kind == .eventStream && interaction.stream?.messages.map(\.eventID) == ["1", "2", "2", nil])

        let playingClock = ManualClock()
        let player = try Cassette(path: path, mode: .none)
        let played = try await Self.read(Self.client(player.transport(), clock: playingClock),
                                         clock: playingClock, waits: [.milliseconds(1500), .milliseconds(700)])
        #expect(played == recorded)
        #expect(playingClock.requestedSleeps == [.milliseconds(1500), .milliseconds(700)], "the server's retry, as recorded")
        await player.streamsEnded()
        try player.assertAllPlayed()
    }

    @Test func aRecordedStreamThatTheClientClosedStaysOpenWhenPlayedUntilTheClientCancels() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let (body, source) = AsyncThrowingStream.makeStream(of: Data.self)
        source.yield(Data("id: 1\ndata: first\n\nid: 2\ndata: second\n\n".utf8))
        let upstream = StreamingMockTransport { _, _, _ in
            StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), body: body)
        }
        let recorder = try Cassette(path: path)
        let recorded = try await Self.firstTwo(Self.client(recorder.transport(upstream: upstream), clock: ManualClock()))
        await recorder.streamsEnded()
        #expect(recorded == ["first", "second"])
        #expect(recorder.interactions.first?.stream?.closedBy == "client")

        let clock = ManualClock()
        let player = try Cassette(path: path, mode: .none)
        let client = Self.client(player.transport(), clock: clock)
        let (seen, seenInput) = AsyncStream.makeStream(of: String.self)
        let reader = Task {
            for try await event in client.events(Self.request) { seenInput.yield(event.data) }
            seenInput.finish()
        }
        var iterator = seen.makeAsyncIterator()
        #expect(await iterator.next() == "first")
        #expect(await iterator.next() == "second")
        reader.cancel()
        _ = try? await reader.value
        await player.streamsEnded()
        #expect(clock.requestedSleeps.isEmpty, "the played stream was held open, not ended and reconnected")
        try player.assertAllPlayed()
    }

    /// Reads two events, then leaves the loop (the client closes the stream).
    static func firstTwo(_ client: Client) async throws -> [String] {
        var seen: [String] = []
        for try await event in client.events(request) {
            seen.append(event.data)
            if seen.count == 2 { break }
        }
        return seen
    }

    @Test func recordedGapsArePlayedOnTheClientsClockWhenAsked() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let ticks = Mutex(0)
        // Each reading of the recording clock is 250 ms after the last: the connection at 0, the events at 0.5 and 0.75.
        let now: @Sendable () -> Date = { start.addingTimeInterval(Double(ticks.withLock { $0 += 1; return $0 }) * 0.25) }
        let server = Server([{ Self.stream(["data: one\n\n"]) }, { Self.stream([], status: .noContent) }])
        let recorder = try Cassette(path: path, now: now)
        let clock = ManualClock()
        _ = try await Self.read(Self.client(recorder.transport(upstream: server.transport), clock: clock), clock: clock, waits: [.seconds(3)])
        await recorder.streamsEnded()
        let interaction = try #require(recorder.interactions.first)
        let gap = try #require(interaction.stream?.messages.first?.at).timeIntervalSince(interaction.attempts[0].startedAt)
        #expect(gap > 0)

        let player = try Cassette(path: path, mode: .none, streamPacing: .recorded)
        let playing = ManualClock()
        let played = try await Self.read(Self.client(player.transport(), clock: playing), clock: playing,
                                         waits: [.milliseconds(Int64((gap * 1000).rounded())), .seconds(3)])
        #expect(played.map(\.data) == ["one"])
        #expect(playing.requestedSleeps == [.milliseconds(Int64((gap * 1000).rounded())), .seconds(3)],
                "the recorded gap before the event, then the reconnection delay")
    }

    @Test func aReconnectionWithAnotherLastEventIDOrOneMoreThanRecordedFailsWithAClearMessage() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var exchange = TraceExchange(
            id: UUID(), operation: "tokens", method: "GET", url: Self.url.absoluteString, startedAt: start, endedAt: start,
            outcome: .success, status: 200, responseHeaders: [TraceHeader(name: "Content-Type", value: "text/event-stream")],
            attempts: [
                TraceAttempt(number: 1, startedAt: start, status: 200, notes: ["messages": "1", "end": "server"]),
                TraceAttempt(number: 2, startedAt: start, status: 200, notes: ["messages": "0", "end": "server", "lastEventID": "9"]),
            ],
            stream: TraceStream(kind: .eventStream, messages: [
                TraceMessage(index: 0, direction: .received, at: start, type: "message", size: 1, payload: Data("a".utf8), eventID: "1"),
            ], receivedCount: 1, byteCount: 1, closedBy: "server"))
        try CassetteFixture.write([exchange], to: path)

        let clock = ManualClock()
        let player = try Cassette(path: path, mode: .none)
        let reader = Task {
            for try await _ in Self.client(player.transport(), clock: clock).events(Self.request) {}
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        let error = await CassetteFixture.cassetteError { try await reader.value }
        #expect(error?.code == .noMatch)
        #expect(error?.message.contains(#"with Last-Event-ID "1", but the recording reconnected with "9""#) == true, "\(String(describing: error))")
        #expect(throws: CassetteError.self) { try player.assertAllPlayed() }

        // The same recording with one connection only: a second one is more than recorded.
        exchange.attempts.removeLast()
        try FileManager.default.removeItem(atPath: path)
        try CassetteFixture.write([exchange], to: path)
        let short = try Cassette(path: path, mode: .none)
        let shortReader = Task {
            for try await _ in Self.client(short.transport(), clock: clock).events(Self.request) {}
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        let more = await CassetteFixture.cassetteError { try await shortReader.value }
        #expect(more?.message.contains("the client opened connection #2 of the event stream recorded as interaction #1") == true,
                "\(String(describing: more))")
        #expect(more?.message.contains("which recorded 1 connection") == true)
    }

    @Test func aStreamCutByTheRecordersCapIsRefusedForPlayback() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let kept = [0, 1, 8, 9].map {
            TraceMessage(index: $0, direction: .received, at: start, type: "message", size: 1, payload: Data("\($0)".utf8))
        }
        let capped = TraceExchange(
            id: UUID(), operation: "tokens", method: "GET", url: Self.url.absoluteString, startedAt: start, endedAt: start,
            outcome: .success, status: 200, attempts: [TraceAttempt(number: 1, startedAt: start, status: 200)],
            stream: TraceStream(kind: .eventStream, messages: kept, receivedCount: 10, omittedCount: 6, byteCount: 10, closedBy: "server"))
        try CassetteFixture.write([capped], to: path)
        let player = try Cassette(path: path, mode: .none)
        let error = await CassetteFixture.cassetteError {
            for try await _ in Self.client(player.transport(), clock: ManualClock()).events(Self.request) {}
        }
        #expect(error?.code == .unreadable)
        #expect(error?.message.contains("is a server-sent event stream whose recording kept 4 of its 10 messages (6 dropped") == true,
                "\(String(describing: error))")
    }

    @Test func ordinaryInteractionsStillPlayThroughTheStreamingPath() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        try CassetteFixture.write([CassetteFixture.exchange("/file", body: "whole body")], to: path)
        let cassette = try Cassette(path: path, mode: .none)
        let context = try await Self.context()
        let response = try await cassette.transport().stream(
            HTTPRequest(method: .get, url: URL(string: "https://api.example.com/file")!), body: nil, context: context)
        #expect(try await response.collect().body == Data("whole body".utf8))
    }

    /// A request context from a real client (contexts are made only by the client).
    static func context() async throws -> RequestContext {
        let captured = Mutex<RequestContext?>(nil)
        let client = Client(baseURL: url, transport: MockTransport { _, _, context in
            captured.withLock { $0 = context }
            return RawResponse(head: HTTPResponse(status: .ok))
        })
        _ = try await client.execute(request)
        return try #require(captured.withLock { $0 })
    }
}

// MARK: WebSocket

/// A server in process: greets, echoes text, reverses binary, closes as asked (a text "close CODE"
/// closes it from the server's side).
struct EchoWebSocketServer: WebSocketTransport {
    func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse {
        link.opened(HTTPResponse(status: .switchingProtocols))
        link.received(.text("welcome"))
        for await command in link.commands {
            switch command {
            case .message(.text(let text)) where text.hasPrefix("close "):
                link.closed(code: Int(text.dropFirst(6)) ?? 1000, reason: "as asked")
                return RawResponse(head: HTTPResponse(status: .switchingProtocols))
            case .message(.text(let text)): link.received(.text("echo: \(text)"))
            case .message(.binary(let data)): link.received(.binary(Data(data.reversed())))
            case .ping: continue  // a real transport answers pings itself, unseen
            case .close(let code, let reason):
                link.received(.text("late"))
                link.closed(code: code, reason: reason)
                return RawResponse(head: HTTPResponse(status: .switchingProtocols))
            }
        }
        link.clientIsClosing()
        link.closed(code: 1000, reason: nil)
        return RawResponse(head: HTTPResponse(status: .switchingProtocols))
    }
}

extension CassetteStreamTests {
    static let socketRequest = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/chat")!)

    /// The conversation the WebSocket tests hold: text, binary, a ping, a close with a code; what was received.
    static func converse(_ client: Client, transport: any WebSocketTransport)
        async throws -> ([WebSocketMessage], WebSocketClose?) {
        let socket = try await client.webSocket(socketRequest, transport: transport)
        var received: [WebSocketMessage] = []
        var messages = socket.messages.makeAsyncIterator()
        if let first = try await messages.next() { received.append(first) }
        try socket.send("hello")
        if let echo = try await messages.next() { received.append(echo) }
        try socket.send(Data([1, 2, 3]))
        if let echo = try await messages.next() { received.append(echo) }
        try socket.ping(Data("are you there".utf8))
        try socket.close(code: 4001, reason: "done here")
        while let message = try await messages.next() { received.append(message) }
        await socket.exchangeEnded()
        return (received, socket.closeInfo)
    }

    /// What the cassette file at `path` holds (a HAR file or a Loupe store).
    static func stored(_ path: String) throws -> [TraceExchange] {
        if path.hasSuffix(".har") { return try HARImporter(redaction: .none).exchanges(contentsOf: URL(fileURLWithPath: path)) }
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        defer { try? store.close() }
        return try store.summaries(after: .min, limit: .max).compactMap { try store.exchange(id: $0.id) }
    }

    @Test(arguments: ["har", "sqlite"])
    func aWebSocketConversationPlaysBackAsRecorded(format: String) async throws {
        let path = Self.path("chat", as: format)
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let recorder = try Cassette(path: path)
        let (recorded, recordedClose) = try await Self.converse(
            Self.client(recorder.transport(), clock: ManualClock()), transport: recorder.webSocketTransport(upstream: EchoWebSocketServer()))
        #expect(recorded == [.text("welcome"), .text("echo: hello"), .binary(Data([3, 2, 1])), .text("late")])
        #expect(recordedClose == WebSocketClose(code: 4001, reason: "done here", byClient: true))

        let stream = try #require(try Self.stored(path).first?.stream)
        #expect(stream.messages.map(\.type) == ["text", "text", "text", "binary", "binary", "ping", "close", "text"])
        #expect(stream.closeCode == 4001 && stream.closeReason == "done here" && stream.closedBy == "client")
        if format == "har" {
            // Chrome's `_webSocketMessages`, as any HAR tool reads them.
            let har = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]]
            let frames = try #require(entries?.first?["_webSocketMessages"] as? [[String: Any]])
            #expect(frames.map { $0["type"] as? String } == ["receive", "send", "receive", "send", "receive", "send", "send", "receive"])
            #expect(frames.map { $0["opcode"] as? Int } == [1, 1, 1, 2, 2, 9, 8, 1])
        }

        let player = try Cassette(path: path, mode: .none)
        let (played, playedClose) = try await Self.converse(
            Self.client(player.transport(), clock: ManualClock()), transport: player.webSocketTransport())
        #expect(played == recorded && playedClose == recordedClose)
        await player.streamsEnded()
        try player.assertAllPlayed()
    }

    @Test func aServersCloseIsPlayedWithItsCodeAndReason() async throws {
        let path = Self.path("close")
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let recorder = try Cassette(path: path)
        func run(_ transport: any WebSocketTransport) async throws -> ([WebSocketMessage], WebSocketClose?) {
            let socket = try await Self.client(MockTransport { _, _, _ in RawResponse(head: HTTPResponse(status: .notFound)) },
                                               clock: ManualClock()).webSocket(Self.socketRequest, transport: transport)
            try socket.send("close 4002")
            var received: [WebSocketMessage] = []
            for try await message in socket.messages { received.append(message) }
            await socket.exchangeEnded()
            return (received, socket.closeInfo)
        }
        let recorded = try await run(recorder.webSocketTransport(upstream: EchoWebSocketServer()))
        let played = try await run(try Cassette(path: path, mode: .none).webSocketTransport())
        #expect(recorded.1 == WebSocketClose(code: 4002, reason: "as asked", byClient: false))
        #expect(played.0 == recorded.0 && played.1 == recorded.1)
    }

    @Test func aClientThatSendsSomethingElseOrMoreThanRecordedFailsWithWhatWasExpected() async throws {
        let path = Self.path("chat")
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let recorder = try Cassette(path: path)
        _ = try await Self.converse(Self.client(recorder.transport(), clock: ManualClock()),
                                    transport: recorder.webSocketTransport(upstream: EchoWebSocketServer()))

        // Something else: the first text differs.
        let other = try Cassette(path: path, mode: .none)
        let socket = try await Self.client(other.transport(), clock: ManualClock())
            .webSocket(Self.socketRequest, transport: other.webSocketTransport())
        try socket.send("goodbye")
        let differs = await CassetteFixture.cassetteError { for try await _ in socket.messages {} }
        #expect(differs?.code == .noMatch)
        #expect(differs?.message.contains(#"the client sent text "goodbye" on the WebSocket recorded as interaction #1"#) == true,
                "\(String(describing: differs))")
        #expect(differs?.message.contains(#"where the recording has it send text "hello" (message #2)"#) == true)
        #expect(throws: CassetteError.self) { try other.assertAllPlayed() }

        // More: one text past the recorded ones, where the recording closes.
        let more = try Cassette(path: path, mode: .none)
        let extra = try await Self.client(more.transport(), clock: ManualClock())
            .webSocket(Self.socketRequest, transport: more.webSocketTransport())
        var messages = extra.messages.makeAsyncIterator()
        _ = try await messages.next()
        try extra.send("hello")
        _ = try await messages.next()
        try extra.send(Data([1, 2, 3]))
        _ = try await messages.next()
        try extra.ping(Data("are you there".utf8))
        try extra.send("one more")
        let error = await CassetteFixture.cassetteError { while try await messages.next() != nil {} }
        #expect(error?.message.contains(#"the client sent text "one more""#) == true, "\(String(describing: error))")
        #expect(error?.message.contains(#"where the recording has it send close 4001 "done here""#) == true)
    }

    @Test func aWebSocketCutByTheRecordersCapIsRefusedAndAPlayingOneEndsWhenCancelled() async throws {
        let path = Self.path("capped")
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func socket(_ pathAndQuery: String, _ stream: TraceStream) -> TraceExchange {
            TraceExchange(id: UUID(), operation: "chat", method: "GET", url: "https://api.example.com\(pathAndQuery)",
                          startedAt: start, endedAt: start, outcome: .success, status: 101, stream: stream)
        }
        let message = { (index: Int, direction: MessageDirection) in
            TraceMessage(index: index, direction: direction, at: start, type: "text", size: 2, payload: Data("m\(index)".utf8))
        }
        try CassetteFixture.write([
            socket("/v1/capped", TraceStream(kind: .webSocket, messages: [message(0, .received), message(7, .received)],
                                             receivedCount: 8, omittedCount: 6, byteCount: 16, closeCode: 1000, closedBy: "server")),
            socket("/v1/chat", TraceStream(kind: .webSocket, messages: [message(0, .received), message(1, .sent)],
                                           sentCount: 1, receivedCount: 1, byteCount: 4, closedBy: "client")),
        ], to: path)
        let player = try Cassette(path: path, mode: .none)
        let client = Self.client(player.transport(), clock: ManualClock())
        let refused = await CassetteFixture.cassetteError {
            _ = try await client.webSocket(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/capped")!),
                                           transport: player.webSocketTransport())
        }
        #expect(refused?.code == .unreadable)
        #expect(refused?.message.contains("is a WebSocket whose recording kept 2 of its 8 messages") == true, "\(String(describing: refused))")

        // The other waits for the client's next message; cancelling its reader ends it.
        let open = try await client.webSocket(Self.socketRequest, transport: player.webSocketTransport())
        let (first, firstInput) = AsyncStream.makeStream(of: WebSocketMessage.self)
        let reader = Task {
            for try await message in open.messages { firstInput.yield(message) }
        }
        var iterator = first.makeAsyncIterator()
        #expect(await iterator.next() == .text("m0"))
        reader.cancel()
        _ = try? await reader.value
        await player.streamsEnded()
        await open.exchangeEnded()
        #expect(open.closeInfo?.byClient == true)
    }
}

extension CassetteStreamTests {
    @Test func secretsInMessagesAreSavedAsPlaceholdersAndPutBackWhenPlayed() async throws {
        let path = Self.path("secret")
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let secret = "sk-live-5f1e9c2d7a"
        let server = Server([{ Self.stream(["id: 1\ndata: key \(secret)\n\n"]) }, { Self.stream([], status: .noContent) }])
        let clock = ManualClock()
        let recorder = try Cassette(path: path, secrets: ["KEY": secret])
        let recorded = try await Self.read(Self.client(recorder.transport(upstream: server.transport), clock: clock), clock: clock,
                                           waits: [.seconds(3)])
        let socket = try await Self.client(recorder.transport(), clock: clock)
            .webSocket(Self.socketRequest, transport: recorder.webSocketTransport(upstream: EchoWebSocketServer()))
        var messages = socket.messages.makeAsyncIterator()
        _ = try await messages.next()
        try socket.send("auth \(secret)")
        let echo = try await messages.next()
        try socket.close()
        while try await messages.next() != nil {}
        await socket.exchangeEnded()
        await recorder.streamsEnded()

        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!file.contains(secret) && file.contains("key <KEY>") && file.contains("auth <KEY>"))

        let player = try Cassette(path: path, mode: .none, secrets: ["KEY": secret])
        let playingClock = ManualClock()
        let played = try await Self.read(Self.client(player.transport(), clock: playingClock), clock: playingClock, waits: [.seconds(3)])
        #expect(played == recorded && played.first?.data == "key \(secret)")
        let replayed = try await Self.client(player.transport(), clock: playingClock)
            .webSocket(Self.socketRequest, transport: player.webSocketTransport())
        var replies = replayed.messages.makeAsyncIterator()
        _ = try await replies.next()
        try replayed.send("auth \(secret)")
        #expect(try await replies.next() == echo && echo == .text("echo: auth \(secret)"))
        try replayed.close()
        while try await replies.next() != nil {}
        await player.streamsEnded()
        try player.assertAllPlayed()
    }
}

extension CassetteStreamTests {
    @Test func theTraitWaitsForAStreamTheTestStoppedReadingAndItsRecordingIsSaved() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let trait: CassetteTrait = .cassette("tokens", directory: folder.path)
        let (body, source) = AsyncThrowingStream.makeStream(of: Data.self)
        source.yield(Data("id: 1\ndata: first\n\nid: 2\ndata: second\n\n".utf8))
        let upstream = StreamingMockTransport { _, _, _ in
            StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), body: body)
        }
        try await trait.provideScope(for: try #require(Test.current), testCase: nil) {
            let cassette = try #require(Cassette.current)
            // Leaves the loop after two events: the stream closes on its own task, after the body returns.
            #expect(try await Self.firstTwo(Self.client(cassette.transport(upstream: upstream), clock: ManualClock())) == ["first", "second"])
        }
        let stream = try #require(try Self.stored(trait.path).first?.stream)
        #expect(stream.closedBy == "client" && stream.messages.map(\.eventID) == ["1", "2"])
        #expect(try Self.stored(trait.path).first?.attempts.first?.notes["end"] == "client", "saved after the connection closed")
    }
}

extension CassetteStreamTests {
    @Test func theRecordingAndReplayPairRecordAndPlayAnEventStreamToo() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let server = Server([{ Self.stream(["id: 7\nevent: token\ndata: x\ndata: y\n\n"]) }, { Self.stream([], status: .noContent) }])
        let clock = ManualClock()
        let recording = try RecordingTransport(path: path, upstream: server.transport)
        let recorded = try await Self.read(Self.client(recording, clock: clock), clock: clock, waits: [.seconds(3)])
        await recording.cassette.streamsEnded()
        #expect(recorded == [ServerSentEvent(type: "token", data: "x\ny", id: "7")])

        let replay = try ReplayTransport(path: path)
        let playing = ManualClock()
        #expect(try await Self.read(Self.client(replay, clock: playing), clock: playing, waits: [.seconds(3)]) == recorded)
        try replay.cassette.assertAllPlayed()
    }
}
