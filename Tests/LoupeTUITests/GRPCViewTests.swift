import Foundation
import Loupe
import LoupeProtobuf
import LoupeTrace
@testable import LoupeTUI
import Testing

/// gRPC in the TUI: the filter prompt completes `~grpc`, `~gs` and status names; the Messages tab shows a gRPC
/// message's protobuf fields, and bytes that are not protobuf in hex.
struct GRPCViewTests {
    @Test func filterPromptCompletesTermsAndStatusNames() {
        #expect(CommandCompletion.candidates(for: "~g", kind: .filter, before: []) == ["~grpc", "~gs"])
        #expect(CommandCompletion.candidates(for: "unav", kind: .filter, before: ["~gs"]) == ["UNAVAILABLE"])
        #expect(CommandCompletion.candidates(for: "DEAD", kind: .command, before: ["filter", "~gs"]) == ["DEADLINE_EXCEEDED"])
    }

    @Test func headerReadsTheCallsStatusNotHTTPs() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let stream = TraceStream(kind: .grpc, messages: [], sentCount: 0, receivedCount: 0, closeCode: 14,
                                 closedBy: "server")
        let exchange = TraceExchange(id: UUID(), operation: "loupe.demo.Warehouse/Reserve", method: "POST",
                                     url: "http://127.0.0.1:9/loupe.demo.Warehouse/Reserve", startedAt: start,
                                     endedAt: start.addingTimeInterval(0.01), outcome: .success, status: 200, error: nil,
                                     requestHeaders: [], requestBody: nil, responseHeaders: [], responseBody: nil,
                                     attempts: [], events: [], stream: stream)
        let facts = DetailTabs(exchange: exchange, calendar: Calendar(identifier: .gregorian)).header()[1]
        let text = facts.spans.map(\.text).joined()
        #expect(text.hasPrefix("UNAVAILABLE  duration"), "\(text)")
        #expect(facts.spans.first?.style == .error)
    }

    @Test func messagesTabShowsProtobufFields() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        // 1: "hello" 2: 42, then bytes that are no protobuf message (field 0).
        let ping = Data([0x0A, 0x05] + Array("hello".utf8) + [0x10, 0x2A])
        let stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: ping.count, payload: ping),
            TraceMessage(index: 1, direction: .received, at: start, type: "message", size: 2, payload: Data([0x00, 0x01])),
        ], sentCount: 1, receivedCount: 1, closeCode: 0, closedBy: "server")
        let rows = MessageRows(stream: stream, start: start)
        let first = rows.spans(0, 0).map(\.text).joined()
        let second = rows.spans(1, 0).map(\.text).joined()
        #expect(first.hasSuffix(#"1: "hello" 2: 42"#), "\(first)")
        #expect(second.hasSuffix("0001"), "\(second)")
    }

    @Test func messagesTabShowsMessagesByFieldNameWithADescriptorSet() throws {
        let shapes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LoupeGRPCTests/Fixtures/shapes.pb")
        let set = try ProtobufDescriptorSet(bytes: Data(contentsOf: shapes))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let order = Data([0x0A, 0x03, 0x41, 0x2D, 0x31, 0x70, 0x02])
        let stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: order.count, payload: order),
            // A response that is no Known (field 1 is a Timestamp, not a string): read without its type.
            TraceMessage(index: 1, direction: .received, at: start, type: "message", size: 5, payload: Data([0x0A, 0x03, 0x41, 0x2D, 0x31])),
        ], sentCount: 1, receivedCount: 1, closeCode: 0, closedBy: "server")
        let exchange = TraceExchange(
            id: UUID(), operation: "loupe.shapes.Shop/Place", method: "POST", url: "http://127.0.0.1:1/loupe.shapes.Shop/Place",
            startedAt: start, endedAt: start, outcome: .success, status: 200, requestHeaders: [], requestBody: nil,
            responseHeaders: [], responseBody: nil, attempts: [], events: [], stream: stream)
        let tabs = DetailTabs(exchange: exchange, calendar: Calendar(identifier: .gregorian), messageTypes: set)
        let rows = tabs.messageLines.dropFirst().map(\.text)
        #expect(rows[0].hasSuffix(#"{"orderId":"A-1","status":"GREEN"}"#), "\(rows[0])")
        #expect(rows[1].hasSuffix(#"1: "A-1""#), "\(rows[1])")
        // The selected message's payload, pretty, is its JSON; hex still shows the bytes.
        var pane = try #require(MessagesPane(tabs))
        pane.preparePayload(.pretty)
        var buffer = Buffer(size: Size(width: 60, height: 12))
        pane.render(in: Rect(x: 0, y: 0, width: 60, height: 12), into: &buffer, search: nil, view: .pretty)
        let screen = buffer.text
        #expect(screen.contains(#""orderId": "A-1","#) && screen.contains(#""status": "GREEN""#), "\(screen)")
        // Without a set, or for a method the set does not have, the wire format as before.
        let plain = DetailTabs(exchange: exchange, calendar: Calendar(identifier: .gregorian)).messageLines.dropFirst().map(\.text)
        #expect(plain[0].hasSuffix(#"1: "A-1" 14: 2"#))
    }
}
