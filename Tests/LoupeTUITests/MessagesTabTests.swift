import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// The Messages tab (issue 30, item 5): a stream's messages from a real store, one deferred row each
/// (`LOUPE_STREAM_BUDGET=1` prints the time; `LOUPE_STREAM_BUDGET_MESSAGES=100000` for the budget's size).
@Suite("Messages tab")
struct MessagesTabTests {
    @Test func theMessagesTabOfATenThousandMessageStreamOpensFromTheStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-tab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path, bounds: nil)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let count = Int(ProcessInfo.processInfo.environment["LOUPE_STREAM_BUDGET_MESSAGES"] ?? "") ?? 10_000
        var exchange = TraceExchange(id: UUID(), operation: "ws", method: "GET", url: "wss://x.test/", startedAt: start,
                                     endedAt: start.addingTimeInterval(60), outcome: .success, status: 101)
        exchange.stream = TraceStream(
            kind: .webSocket,
            messages: (0..<count).map { TraceMessage(index: $0, direction: $0 % 2 == 0 ? .sent : .received,
                                                     at: start.addingTimeInterval(Double($0) / 1000), type: "text", size: 30,
                                                     payload: Data("{\"n\":\($0),\"price\":101.25}".utf8)) },
            sentCount: count / 2, receivedCount: count - count / 2, byteCount: 30 * count)
        try store.write([exchange])
        let clock = ContinuousClock()
        var lines: [String] = []
        let elapsed = try clock.measure {
            let read = try #require(try store.exchange(id: exchange.id))
            let tabs = DetailTabs(exchange: read, calendar: Calendar(identifier: .gregorian))
            let all = tabs.lines(.messages, bodyView: .pretty, width: 120)
            // What a 40-row screen draws: the first page.
            lines = all.prefix(40).map(\.text)
            #expect(all.count == count + 1)
        }
        #expect(lines[1].contains("#0") && lines[1].contains("{\"n\":0,"))
        if ProcessInfo.processInfo.environment["LOUPE_STREAM_BUDGET"] != nil {
            print("stream budget: Messages tab of \(count) messages opened in \(elapsed)")
        }
    }
}
