import Foundation
import Loupe
import LoupeServe
import LoupeTrace
import Testing

/// Recorded streams as they are served: event blocks and their waits, WebSocket conversations as steps, and the book
/// keeping WebSocket recordings apart from plain requests of the same path.
@Suite struct ServeStreamTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func message(_ index: Int, _ direction: MessageDirection, _ type: String, _ text: String, at offset: Double,
                        id: String? = nil) -> TraceMessage {
        TraceMessage(index: index, direction: direction, at: start.addingTimeInterval(offset), type: type,
                     size: text.utf8.count, payload: Data(text.utf8), eventID: id)
    }

    @Test func eventsAreWrittenAsBlocksWithTheRecordedGapsScaled() {
        let stream = TraceStream(kind: .eventStream, messages: [
            Self.message(0, .received, "message", "one", at: 0.5, id: "1"),
            Self.message(1, .received, "token", "two\nlines", at: 1.5, id: "2"),
            Self.message(2, .received, "token", "three", at: 1.7, id: "2"),
        ], receivedCount: 3, closedBy: "server")
        let paced = ServeEventStream(stream, start: Self.start, pace: 0.5)
        #expect(paced.blocks.map { String(decoding: $0.text, as: UTF8.self) } == [
            "id: 1\ndata: one\n\n", "id: 2\nevent: token\ndata: two\ndata: lines\n\n", "event: token\ndata: three\n\n",
        ])
        // 0.5 s from the first byte, then 1 s and 0.2 s between events, halved.
        #expect(zip(paced.blocks.map(\.wait), [0.25, 0.5, 0.1]).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(ServeEventStream(stream, start: Self.start, pace: nil).blocks.allSatisfy { $0.wait == 0 })
    }

    @Test func aWebSocketAnswersAfterTheClientsMessagesAndClosesAsRecorded() {
        let stream = TraceStream(kind: .webSocket, messages: [
            Self.message(0, .received, "text", "hello", at: 0),
            Self.message(1, .sent, "text", "subscribe", at: 1),
            Self.message(2, .received, "text", "tick 1", at: 3),
            Self.message(3, .received, "ping", "", at: 3.5),
            Self.message(4, .received, "binary", "\u{1}", at: 4),
            TraceMessage(index: 5, direction: .received, at: Self.start.addingTimeInterval(5), type: "close", size: 17,
                         payload: Data([0x03, 0xF3]) + Data("feed restarting".utf8)),
        ], sentCount: 1, receivedCount: 5, closeCode: 1011, closeReason: "feed restarting", closedBy: "server")
        let steps = ServeWebSocket(stream, start: Self.start, pace: 2).steps
        #expect(steps == [
            .send(text: true, payload: Data("hello".utf8), wait: 0),
            .awaitClient,
            .send(text: true, payload: Data("tick 1".utf8), wait: 4),
            .send(text: false, payload: Data([1]), wait: 2),
            .close(code: 1011, reason: "feed restarting", wait: 2),
        ])
    }

    @Test func aConversationTheClientClosedWaitsForTheClient() {
        let stream = TraceStream(kind: .webSocket, messages: [
            Self.message(0, .sent, "text", "a", at: 0), Self.message(1, .sent, "text", "b", at: 0),
            Self.message(2, .received, "text", "A", at: 0), Self.message(3, .sent, "close", "\u{3}\u{E8}", at: 1),
        ], sentCount: 3, receivedCount: 1, closeCode: 1000, closedBy: "client")
        #expect(ServeWebSocket(stream, start: nil, pace: nil).steps == [
            .awaitClient, .awaitClient, .send(text: true, payload: Data("A".utf8), wait: 0), .awaitClose,
        ])
        #expect(ServeWebSocket.sendable(1006) == 1000 && ServeWebSocket.sendable(4001) == 4001)
    }

    @Test func aWebSocketRecordingAnswersOnlyAHandshake() {
        var recorded = ServeRequest(method: "GET", path: "/ticker")
        recorded.webSocket = true
        var book = ServeBook([ServeRequest(method: "GET", path: "/ticker"), recorded])
        var handshake = ServeRequest(method: "GET", path: "/ticker")
        handshake.webSocket = true
        #expect(book.take(handshake) == .serve(1))
        #expect(book.take(ServeRequest(method: "GET", path: "/ticker")) == .serve(0))
        #expect(book.take(handshake) == .serve(1))
    }
}
