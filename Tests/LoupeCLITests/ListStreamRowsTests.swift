import Foundation
import Loupe
import LoupeQuery
@testable import loupe
import LoupeTrace
import Testing

/// `loupe list` (text and `--json`) lists a stored stream by what it did, read by the store's summary query from a
/// real SQLite file: not a finished event stream's `204`, a WebSocket's `101` or a cut stream's plain `200`
/// (issue 43, item 10).
@Suite struct ListStreamRowsTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func exchange(_ number: Int, url: String, status: Int, stream: TraceStream?) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "op", method: "GET", url: url, startedAt: start.addingTimeInterval(Double(number)),
            endedAt: start.addingTimeInterval(Double(number) + 4), outcome: .success, status: status, stream: stream)
    }

    static func summaries() throws -> [TraceSummary] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("traces.sqlite").path
        let writer = try SQLiteTraceStore(path: path, bounds: nil)
        try writer.write([
            exchange(1, url: "http://127.0.0.1:8080/events", status: 204,
                     stream: TraceStream(kind: .eventStream, receivedCount: 21, byteCount: 1_890, closedBy: "server")),
            exchange(2, url: "ws://127.0.0.1:8080/ticker", status: 101,
                     stream: TraceStream(kind: .webSocket, sentCount: 2, receivedCount: 14, byteCount: 512,
                                         closeCode: 1006, closedBy: "server")),
            exchange(3, url: "http://127.0.0.1:8080/events?cut", status: 200,
                     stream: TraceStream(kind: .eventStream, receivedCount: 5, byteCount: 450,
                                         closeReason: "connection reset by peer", closedBy: "server")),
            exchange(4, url: "http://127.0.0.1:8080/plain", status: 200, stream: nil),
        ])
        try writer.close()
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        defer { try? reader.close() }
        // What `loupe list` reads.
        return try reader.summaries(matching: nil, limit: 50)
    }

    @Test func theTextListSaysWhatEachStreamDid() throws {
        let lines = try Self.summaries().map(ListCommand.line)
        let finished = try #require(lines.first { $0.hasSuffix("/events  (↑ 0 ↓ 21 ended, 1.8 KiB)") }, "\(lines)")
        #expect(finished.contains(" SSE "))
        let socket = try #require(lines.first { $0.contains("/ticker") })
        #expect(socket.contains(" 1006 ") && socket.hasSuffix("(↑ 2 ↓ 14 cut, 512 B)"), "\(socket)")
        let cut = try #require(lines.first { $0.contains("/events?cut") })
        #expect(cut.contains(" SSE ") && cut.hasSuffix("(↑ 0 ↓ 5 cut, 450 B)"), "\(cut)")
        let plain = try #require(lines.first { $0.contains("/plain") })
        #expect(plain.contains(" 200 ") && plain.hasSuffix("/plain"))
    }

    @Test func theJSONListCarriesEachStreamsEnding() throws {
        let text = try Formatting.json(try Self.summaries().map(SummaryJSON.init))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let endings = rows.map { ($0["stream"] as? [String: Any])?["ending"] as? String }
        #expect(endings == ["ended", "cut", "cut", nil])
        #expect((rows[0]["stream"] as? [String: Any])?["received"] as? Int == 21)
    }
}
