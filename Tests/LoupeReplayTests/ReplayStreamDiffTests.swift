import Foundation
import Loupe
@testable import LoupeReplay
@testable import LoupeTrace
import Testing

/// A stream's replay compared by the server's messages: count, then each message's type and payload (JSON by
/// structure), and how it closed; `--ignore` JSON paths and `body` apply to every message.
@Suite("Replay diff: streams")
struct ReplayStreamDiffTests {
    static let start = Date(timeIntervalSince1970: 0)

    static func exchange(_ received: [(String, String)], sent: [String] = ["{\"subscribe\":\"A\"}"], closedBy: String = "client",
                         code: Int = 1000) -> TraceExchange {
        var messages: [TraceMessage] = []
        for text in sent {
            messages.append(TraceMessage(index: messages.count, direction: .sent, at: start, type: "text", size: text.utf8.count, payload: Data(text.utf8)))
        }
        for (type, text) in received {
            messages.append(TraceMessage(index: messages.count, direction: .received, at: start, type: type, size: text.utf8.count, payload: Data(text.utf8)))
        }
        return TraceExchange(
            id: UUID(), operation: "ticker", method: "GET", url: "http://127.0.0.1:1/ticker", startedAt: start, outcome: .success,
            status: 101, stream: TraceStream(kind: .webSocket, messages: messages, sentCount: sent.count, receivedCount: received.count,
                                             omittedCount: 0, byteCount: 0, closeCode: code, closeReason: nil, closedBy: closedBy))
    }

    @Test("each server message by structure; the client's messages are not compared")
    func messages() throws {
        let old = Self.exchange([("text", #"{"seq":1,"price":10}"#), ("text", #"{"seq":2,"price":11}"#), ("binary", "AB")])
        let new = Self.exchange([("text", #"{"seq":1,"price":12}"#), ("text", #"{"seq":2,"price":11}"#), ("binary", "AB")],
                                sent: ["{\"subscribe\":\"B\"}"])
        let diff = ExchangeDiff(original: old, replay: new)
        #expect(diff.differences.map(\.description) == ["message[0] $.price: 10 → 12"])
        #expect(ExchangeDiff(original: old, replay: old).isSame)
        let ignoring = ExchangeDiff(original: old, replay: new, options: DiffOptions(ignore: [try DiffPattern("$.price")]))
        #expect(ignoring.isSame && ignoring.ignored.count == 1, "a JSON path applies to every message")
        #expect(ExchangeDiff(original: old, replay: new, options: DiffOptions(ignore: [try DiffPattern("body")])).isSame)
    }

    @Test("fewer messages, another type, another close")
    func shape() {
        let old = Self.exchange([("text", "a"), ("text", "b"), ("text", "c")])
        let new = Self.exchange([("text", "a"), ("binary", "b")], closedBy: "server", code: 1011)
        #expect(ExchangeDiff(original: old, replay: new).differences.map(\.description) == [
            "messages: 3 → 2", "message[1]: text b → binary b", "message[2]: removed text c",
            "messages: closed by the client 1000 → closed by the server 1011",
        ])
        #expect(ExchangeDiff(original: new, replay: old).differences.map(\.description).contains("message[2]: added text c"))
    }
}
