import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFormats
import Testing
@testable import LoupeTestSupport

/// Streams in HAR (issue 30, item 4): WebSocket messages as Chrome writes them in `_webSocketMessages`, every stream
/// in `_loupe.stream`; both imported.
@Suite("Streams in HAR")
struct StreamHARTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func exchange(_ kind: ExchangeStreamKind) -> TraceExchange {
        var exchange = TraceExchange(
            id: UUID(), operation: "stream", method: "GET", url: "https://api.example.test/stream", startedAt: start,
            endedAt: start.addingTimeInterval(2), outcome: .success, status: kind == .webSocket ? 101 : 200)
        let messages = kind == .webSocket ? [
            TraceMessage(index: 0, direction: .sent, at: start.addingTimeInterval(0.5), type: "text", size: 5, payload: Data("hello".utf8)),
            TraceMessage(index: 1, direction: .received, at: start.addingTimeInterval(0.75), type: "binary", size: 3,
                         payload: Data([0, 0xFF, 7])),
            TraceMessage(index: 3, direction: .sent, at: start.addingTimeInterval(1.5), type: "close", size: 4,
                         payload: Data([0x03, 0xE8]) + Data("ok".utf8)),
        ] : [
            TraceMessage(index: 0, direction: .received, at: start.addingTimeInterval(0.125), type: "token", size: 7,
                         payload: Data("a\nb é …".utf8.prefix(7)), isTruncated: true, eventID: "1"),
        ]
        exchange.stream = TraceStream(
            kind: kind, messages: messages, sentCount: kind == .webSocket ? 2 : 0, receivedCount: kind == .webSocket ? 2 : 1,
            omittedCount: kind == .webSocket ? 1 : 0, byteCount: 20, closeCode: kind == .webSocket ? 1000 : nil,
            closeReason: kind == .webSocket ? "ok" : nil, closedBy: "client")
        return exchange
    }

    @Test func theWriterWritesStreamsAsTheEncoderDoesAndTheyImportBack() throws {
        let exchanges = [Self.exchange(.webSocket), Self.exchange(.eventStream)]
        let data = try HARExporter().data(for: exchanges)
        #expect(data == (try HARStreamFixtures.wholeDocument(exchanges)))
        let imported = try HARImporter().exchanges(from: data)
        #expect(imported.map(\.stream) == exchanges.map(\.stream))
    }

    @Test func webSocketMessagesAreWrittenAsChromeWritesThem() throws {
        let data = try HARExporter().data(for: [Self.exchange(.webSocket)])
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entry = try #require(((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        #expect(entry["_resourceType"] as? String == "websocket")
        let messages = try #require(entry["_webSocketMessages"] as? [[String: Any]])
        #expect(messages.map { $0["type"] as? String } == ["send", "receive", "send"])
        #expect(messages.map { $0["opcode"] as? Int } == [1, 2, 8])
        #expect(messages.map { $0["data"] as? String } == ["hello", Data([0, 0xFF, 7]).base64EncodedString(),
                                                           (Data([0x03, 0xE8]) + Data("ok".utf8)).base64EncodedString()])
        #expect((messages[0]["time"] as? Double).map { abs($0 - 1_700_000_000.75) < 1e-6 } == true)
    }

    @Test func aChromeWebSocketEntryImportsItsMessages() throws {
        let har = """
            {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{
              "startedDateTime":"2024-05-01T12:00:00.000Z","time":10,"_resourceType":"websocket",
              "request":{"method":"GET","url":"wss://echo.example.test/","httpVersion":"HTTP/1.1","headers":[],
                "queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
              "response":{"status":101,"statusText":"Switching Protocols","httpVersion":"HTTP/1.1","headers":[],
                "cookies":[],"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":0},
              "cache":{},"timings":{"send":0,"wait":10,"receive":0},
              "_webSocketMessages":[{"type":"send","time":1714564800.5,"opcode":1,"data":"hi"},
                                    {"type":"receive","time":1714564800.75,"opcode":2,"data":"AAE="}]}]}}
            """
        let exchange = try #require(try HARImporter().exchanges(from: Data(har.utf8)).first)
        let stream = try #require(exchange.stream)
        #expect(stream.kind == .webSocket && stream.sentCount == 1 && stream.receivedCount == 1)
        #expect(stream.messages.map(\.type) == ["text", "binary"] && stream.messages[1].payload == Data([0, 1]))
    }
}
