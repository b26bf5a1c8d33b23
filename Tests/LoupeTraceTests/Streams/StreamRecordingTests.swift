import Foundation
import GRDB
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// Streams recorded message by message into a real SQLite file through the recorder (issue 30, item 3).
@Suite("Stream recording")
struct StreamRecordingTests {
    /// Reads an event stream of `body` to its end through a recording client; returns the stored exchange and the
    /// store file's bytes.
    func record(_ body: String, headers: HTTPFields = [:], configuration: NetworkTraceInspector.Configuration = .init())
        async throws -> (trace: TraceExchange, bytes: Data) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let inspector = NetworkTraceInspector(store: store, configuration: configuration)
        let id = UUID()
        let served = Data(body.utf8)
        let calls = Mutex(0)
        let transport = StreamingMockTransport { _, _, _ in
            let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            // The first connection serves the stream; the reconnection is told to stop (204).
            let first = calls.withLock { $0 += 1; return $0 == 1 }
            if first { continuation.yield(served) }
            continuation.finish()
            return StreamedResponse(
                head: HTTPResponse(status: first ? .ok : .noContent, headerFields: [.contentType: "text/event-stream"]), body: chunks)
        }
        let config = Fixture.configuration(ids: [id])
        let client = Client(baseURL: URL(string: "https://api.example.test")!, transport: transport, observer: inspector,
                            configuration: config)
        let request = Fixture.request("https://api.example.test/events?api_key=QK-7781-secret", headers: headers)
        for try await _ in client.events(request, stream: EventStreamOptions(reconnectDelay: .zero)) {}
        await inspector.shutdown()
        let trace = try #require(try store.exchange(id: id))
        try store.close()
        var bytes = Data()
        for suffix in ["", "-wal"] { bytes.append(FileManager.default.contents(atPath: path + suffix) ?? Data()) }
        return (trace, bytes)
    }

    @Test func everyEventIsStoredWithItsTypeSizeTimeAndID() async throws {
        let (trace, _) = try await record("event: token\nid: 1\ndata: Hel\n\nid: 2\ndata: lo\ndata: there\n\n")
        let stream = try #require(trace.stream)
        #expect(stream.kind == .eventStream && stream.receivedCount == 2 && stream.sentCount == 0 && stream.omittedCount == 0)
        #expect(stream.messages.map(\.type) == ["token", "message"])
        #expect(stream.messages.map(\.index) == [0, 1] && stream.messages.map(\.eventID) == ["1", "2"])
        #expect(stream.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["Hel", "lo\nthere"])
        #expect(stream.messages.map(\.size) == [3, 8] && stream.byteCount == 11)
        #expect(stream.messages.allSatisfy { $0.direction == .received && $0.at >= trace.startedAt })
        #expect(trace.events.contains { $0.kind == .streamOpen })
    }

    @Test func payloadsAreRedactedByNameAndByValueLikeBodies() async throws {
        let body = "data: {\"password\":\"PW-9911-x\",\"n\":1}\n\ndata: echo QK-7781-secret and BT-5566-token\n\n"
        let (trace, bytes) = try await record(body, headers: [.authorization: "Bearer BT-5566-token"])
        for secret in ["PW-9911-x", "QK-7781-secret", "BT-5566-token"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the store file")
        }
        let payloads = trace.stream?.messages.map { String(decoding: $0.payload, as: UTF8.self) } ?? []
        #expect(payloads.first == "{\"password\":\"[REDACTED]\",\"n\":1}")
        #expect(payloads.last?.contains("[REDACTED]") == true)
    }

    @Test("short secrets in events are redacted by name in the stream's stored body too, not only in its messages (issue 44, item 5)")
    func shortSecretsInTheStreamBodyAreRedactedByName() throws {
        let body = "id: 1\ndata: {\"password\": \"pw1\", \"otp\": \"4821\", \"client_secret\": \"cs9Z7\", \"n\": 1}\n\n"
            + "event: update\r\ndata: {\"user\": \"ada\",\r\ndata:  \"sig\": \"s1g\"}\r\n\r\ndata: {\"token\": \"cut"
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let exchange = TraceExchange(
            id: UUID(), operation: "GET /events", method: "GET", url: "https://api.example.test/events", startedAt: start,
            endedAt: start, outcome: .success, status: 200,
            responseHeaders: [TraceHeader(name: "Content-Type", value: "text/event-stream; charset=utf-8")],
            responseBody: TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false))
        let redacted = RedactionPolicy().redact(exchange: exchange)
        let stored = String(decoding: try #require(redacted.responseBody).data, as: UTF8.self)
        #expect(stored == "id: 1\ndata: {\"password\": \"[REDACTED]\", \"otp\": \"[REDACTED]\", \"client_secret\": \"[REDACTED]\", \"n\": 1}\n\n"
            + "event: update\r\ndata: {\"user\": \"ada\",\r\ndata:  \"sig\": \"[REDACTED]\"}\r\n\r\ndata: {\"token\": \"[REDACTED]\"")
        #expect(RedactionPolicy().redact(exchange: redacted) == redacted, "redacting again changes nothing")
    }

    @Test("text/event-stream is recognised whatever its case, blanks and parameters, and nothing else is")
    func eventStreamTypes() {
        for type in ["text/event-stream", "Text/Event-Stream; charset=utf-8", "  text/event-stream ;x=1", "TEXT/EVENT-STREAM"] {
            #expect(EventStreamBodyRedactor.isEventStream(type), "\(type)")
        }
        for type in ["text/event-streams", "application/json; charset=utf-8", "text/event", "", "text/plain", "xtext/event-stream"] {
            #expect(!EventStreamBodyRedactor.isEventStream(type), "\(type)")
        }
    }

    @Test func pastTheCapTheFirstAndLastAreKeptAndTheRestCountedWithCutPayloads() async throws {
        let body = (0..<10).map { "data: \($0)\(String(repeating: "x", count: 20))\n\n" }.joined()
        let (trace, _) = try await record(body, configuration: .init(messageCap: 4, messagePayloadCap: 5))
        let stream = try #require(trace.stream)
        #expect(stream.messages.map(\.index) == [0, 1, 8, 9])
        #expect(stream.receivedCount == 10 && stream.omittedCount == 6)
        #expect(stream.messages.allSatisfy { $0.payload.count == 5 && $0.size == 21 && $0.isTruncated })
    }

    @Test func aV6StoreOpensReadOnlyWithoutStreamsAndIsUpgradedByAWriter() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.oldStore(at: path, upTo: "v6")
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let old = try #require(try reader.exchange(id: UUID(uuidString: "0F000000-0000-4000-8000-000000000001")!))
        #expect(old.stream == nil)
        try reader.close()
        let writer = try SQLiteTraceStore(path: path)
        var exchange = TraceExchange(id: UUID(), operation: "GET /ws", method: "GET", url: "wss://x.test/ws",
                                     startedAt: Date(timeIntervalSince1970: 1000), outcome: .success)
        exchange.stream = TraceStream(
            kind: .webSocket,
            messages: [TraceMessage(index: 0, direction: .sent, at: Date(timeIntervalSince1970: 1001), type: "text", size: 2,
                                    payload: Data("hi".utf8))],
            sentCount: 1, byteCount: 2, closeCode: 1000, closeReason: "bye", closedBy: "client")
        try writer.write([exchange])
        #expect(try writer.exchange(id: exchange.id)?.stream == exchange.stream)
        #expect(try writer.exchange(id: UUID(uuidString: "0F000000-0000-4000-8000-000000000001")!)?.stream == nil)
        #expect(try writer.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == SQLiteSchema.version)
        // Pruning an exchange takes its messages with it (deleted by the store: its connections enforce no foreign
        // keys, so a plain `DELETE FROM exchange` would not cascade; DECISIONS 69).
        try writer.prune(TraceStoreBounds(maxCount: 0, maxBytes: nil, maxAge: nil))
        #expect(try writer.count() == 0)
        #expect(try writer.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM message") } == 0)
    }
}
