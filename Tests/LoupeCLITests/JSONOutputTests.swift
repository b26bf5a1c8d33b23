import Foundation
import Loupe
@testable import loupe
import LoupeTrace
import Testing

@Suite("--json with values no JSON number can hold")
struct JSONOutputTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// JSONEncoder leaves nil optionals out: an unknown or unwritable number has no key, as JSON null would say.
    static func isNull(_ value: Any?) -> Bool { value == nil || value is NSNull }

    @Test("list --json writes null for durations that are not finite or overflow in milliseconds")
    func summaries() throws {
        for duration in [Double.infinity, -.infinity, .nan, 1e307, -1e307] {
            let summary = TraceSummary(id: UUID(), sequence: 1, operation: "op", method: "GET", url: "http://x.test/",
                                       startedAt: Self.start, duration: duration, outcome: .success, status: 200,
                                       error: nil, attemptCount: 1, replayOf: nil)
            let text = try Formatting.json([SummaryJSON(summary)])
            let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            #expect(array.count == 1 && Self.isNull(array.first?["durationMs"]))
        }
        let huge = TraceSummary(id: UUID(), sequence: 1, operation: "op", method: "GET", url: "http://x.test/",
                                startedAt: Date(timeIntervalSince1970: 1e300), duration: 1e22, outcome: .success,
                                status: 200, error: nil, attemptCount: 1, replayOf: nil)
        let object = try Self.object(try Formatting.json(SummaryJSON(huge)))
        #expect(abs((object["durationMs"] as? Double ?? 0) - 1e25) <= 1e10)
        #expect(object["startedAt"] as? String == "")
    }

    @Test("show --json survives infinite and absurd times and includes the trace context")
    func exchange() throws {
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let exchange = TraceExchange(
            id: UUID(), sequence: 3, operation: "op", method: "GET", url: "http://x.test/", startedAt: Self.start,
            endedAt: Date(timeIntervalSince1970: .infinity), outcome: .success, status: 200,
            requestHeaders: [TraceHeader(name: "traceparent", value: traceparent)],
            attempts: [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: -1e300),
                                    endedAt: Date(timeIntervalSince1970: .nan), retryDelay: .infinity)],
            events: [TraceEvent(kind: "k", at: Date(timeIntervalSince1970: 1e300), message: "m")])
        let object = try Self.object(try Formatting.json(ExchangeJSON(exchange)))
        #expect(Self.isNull(object["durationMs"]))
        let attempt = try #require((object["attempts"] as? [[String: Any]])?.first)
        #expect(Self.isNull(attempt["retryDelayMs"]))
        #expect(Self.isNull(attempt["durationMs"]))
        #expect(attempt["number"] as? Int == 1)
        let context = try #require(object["traceContext"] as? [String: Any])
        #expect(context["traceID"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context["spanID"] as? String == "00f067aa0ba902b7")
        // The text view survives the same values.
        #expect(ExchangeText.render(exchange).contains("duration —"))
    }

    @Test("stats --json writes null for percentiles that are not finite")
    func stats() throws {
        let row = TraceStats(group: .all, count: 2, errorCount: 0, retriedCount: 0, p50: .nan, p95: .infinity,
                             p99: 1e307, requestBytes: 0, responseBytes: 0, breakerTransitions: 0)
        let report = StatsJSON(all: StatsJSON.Row(name: nil, row), operations: [], hosts: [])
        let all = try #require(try Self.object(try Formatting.json(report))["all"] as? [String: Any])
        #expect(all["count"] as? Int == 2)
        #expect(Self.isNull(all["p50Ms"]) && Self.isNull(all["p95Ms"]) && Self.isNull(all["p99Ms"]))
        #expect(StatsCommand.percent(.nan) == "—")
    }

    @Test("durations print as text whatever their value")
    func text() {
        #expect(Quantity.duration(.infinity) == "∞")
        #expect(Quantity.duration(.nan) == "—")
        #expect(Quantity.duration(1e22) == ">999 d")
        #expect(Quantity.duration(0.25) == "250 ms")
        #expect(Formatting.time(Date(timeIntervalSince1970: 1e300)) == "—")
    }
}
