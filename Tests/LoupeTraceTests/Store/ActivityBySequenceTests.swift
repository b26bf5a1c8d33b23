import Foundation
import Loupe
@testable import LoupeQuery
import Testing
@testable import LoupeTrace

/// The timeline reads the rows in view by sequence: scattered ones, with their attempts and events, without
/// headers or bodies, and the SQLite store answers as the protocol's plain fallback does.
@Suite struct ActivityBySequenceTests {
    static func exchange(_ number: Int) -> TraceExchange {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(number))
        let attempts = (1...(number % 3 + 1)).map { attempt in
            TraceAttempt(number: attempt, startedAt: start.addingTimeInterval(Double(attempt) * 0.1),
                         endedAt: start.addingTimeInterval(Double(attempt) * 0.1 + 0.05), status: attempt == 1 ? 503 : 200)
        }
        return TraceExchange(
            id: UUID(), operation: "op", method: "GET", url: "https://a.test/\(number)", startedAt: start,
            endedAt: start.addingTimeInterval(1), outcome: .success, status: 200,
            requestHeaders: [TraceHeader(name: "Accept", value: "text/plain")],
            responseBody: TraceBody(data: Data("body \(number)".utf8), size: 6, isTruncated: false), attempts: attempts,
            events: [TraceEvent(kind: .retryScheduled, at: start, message: "retry \(number)")])
    }

    @Test func scatteredSequencesComeBackWithTheirAttemptsAndEventsOnly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteTraceStore(path: path)
        try store.write((1...40).map(Self.exchange))
        let wanted: [Int64] = [33, 2, 17, 9999, 17, 5]
        let found = try store.activity(sequences: wanted)
        #expect(found.map(\.sequence) == [2, 5, 17, 33], "by sequence, once each, the missing one left out")
        let reference = try wanted.compactMap { try store.exchange(sequence: $0) }
        for exchange in found {
            let full = try #require(reference.first { $0.sequence == exchange.sequence })
            #expect(exchange.id == full.id)
            #expect(exchange.attempts == full.attempts)
            #expect(exchange.events == full.events)
            #expect(exchange.requestHeaders.isEmpty && exchange.responseBody?.data.isEmpty != false, "no headers or bodies")
        }
        #expect(try store.activity(sequences: []).isEmpty)
        let plain = InMemoryTraceStore()
        try plain.write((1...40).map(Self.exchange))
        #expect(try plain.activity(sequences: wanted).map(\.sequence) == [2, 5, 17, 33])
    }
}
