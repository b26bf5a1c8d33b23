import Foundation
import Loupe
@testable import loupe
import LoupeTrace
import LoupeTUI
import Testing

/// `loupe show` prints the TUI's detail document, so the two renderings of an exchange cannot drift.
@Suite("loupe show text")
struct ShowTextTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// An exchange with every field `show` prints filled in.
    static func fullExchange() -> TraceExchange {
        TraceExchange(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, sequence: 42, operation: "listItems",
            method: "POST", url: "https://api.example.com/items?page=2", startedAt: start,
            endedAt: start.addingTimeInterval(0.75), outcome: .httpError, status: 503, error: "gave up after 2 attempts",
            requestHeaders: [TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                             TraceHeader(name: "Authorization", value: "<redacted>")],
            requestBody: TraceBody(data: Data(#"{"name":"x"}"#.utf8), size: 12, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Retry-After", value: "1")],
            responseBody: TraceBody(data: Data("unavail".utf8), size: 5000, isTruncated: true),
            attempts: [
                TraceAttempt(number: 1, startedAt: start, requestSentAt: start.addingTimeInterval(0.001),
                             firstByteAt: start.addingTimeInterval(0.005), endedAt: start.addingTimeInterval(0.008),
                             status: 503, circuitState: "closed", notes: ["cache": "miss", "auth.generation": "3"]),
                TraceAttempt(number: 2, startedAt: start.addingTimeInterval(0.3), endedAt: start.addingTimeInterval(0.75),
                             error: "connection reset", circuitState: "half-open", retryReason: "status 503",
                             retryDelay: 0.25),
            ],
            events: [TraceEvent(kind: "retry", at: start.addingTimeInterval(0.008), message: "retry in 250 ms",
                                attributes: ["attempt": "1", "delayMs": "250"])],
            replayOf: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    }

    @Test("show's text is the detail document's lines without styles")
    func sameDocument() {
        for exchange in [Self.fullExchange(), TerminalTextTests.hostileExchange()] {
            let document = DetailDocument(exchange: exchange, calendar: Self.utc).lines.map(\.text)
            #expect(ExchangeText.render(exchange, calendar: Self.utc).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init) == document)
        }
    }

    @Test("show prints everything it printed before the shared document")
    func informationContent() {
        let text = ExchangeText.render(Self.fullExchange(), calendar: Self.utc)
        let expected = [
            "POST https://api.example.com/items?page=2",
            "operation listItems", "started 2023-11-14 22:13:20.000", "duration 750 ms", "outcome http error",
            "6f9619ff-8b86-d011-b42d-00c04fc964ff  #42", "replay of 00000000-0000-0000-0000-000000000001",
            "trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7",
            "Response  503 Service Unavailable  error: gave up after 2 attempts",
            "  Authorization: <redacted>", "  Retry-After: 1",
            "Request body  12 B", #"    "name": "x""#,
            "Response body  4.9 KiB (5,000 bytes), truncated", "  unavail", "(truncated: 7 of 5,000 bytes stored)",
            "#1  503 Service Unavailable  8.0 ms",
            "    timeline  start +0.0 ms  sent +1.0 ms  first byte +5.0 ms  end +8.0 ms",
            "    phases    send 1.0 ms  wait 4.0 ms  receive 3.0 ms", "    circuit   closed",
            "    notes     auth.generation 3  cache miss",
            "#2  ERR  450 ms", "    timeline  start +300 ms  sent —  first byte —  end +750 ms",
            "    circuit   half-open", "    retry     status 503  after 250 ms", "    error     connection reset",
            "+8.0 ms  22:13:20.008  retry  retry in 250 ms  attempt=1 delayMs=250",
            "Timing", "#1 503 ▋ ", "#2 ERR  ┈┈", "▓ no milestones  ┈ backoff  ✗ error",
        ]
        for fact in expected { #expect(text.contains(fact), "missing: \(fact)") }
    }
}
