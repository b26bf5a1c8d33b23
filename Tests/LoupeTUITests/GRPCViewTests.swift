import Foundation
import Loupe
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
}
