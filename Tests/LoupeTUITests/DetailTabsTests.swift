import Foundation
import Loupe
@testable import LoupeTUI
import LoupeTrace
import LoupeFormats
import Testing

/// Each detail tab of one exchange, line for line.
@Suite struct DetailTabsTests {
    static let start = Fixture.epoch
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    static func at(_ millis: Double) -> Date { start.addingTimeInterval(millis / 1000) }

    /// A POST that was retried twice: a 503, a reset connection, then a 201 with a JSON body.
    static let exchange = TraceExchange(
        id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, sequence: 42, operation: "createItem",
        method: "POST", url: "https://api.example.com/items?dry=1&tag=a%20b", startedAt: start, endedAt: at(1250),
        outcome: .success, status: 201,
        requestHeaders: [TraceHeader(name: "Content-Type", value: "application/json"),
                         TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                         TraceHeader(name: "Authorization", value: "<redacted>")],
        requestBody: Fixture.body(#"{"name":"Zoë","price":1.10}"#),
        responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json"), TraceHeader(name: "Location", value: "/items/7")],
        responseBody: Fixture.body(#"{"id":12345678901234567890,"tags":[],"ok":true}"#),
        attempts: [
            TraceAttempt(number: 1, startedAt: at(0), requestSentAt: at(1), firstByteAt: at(5), endedAt: at(8), status: 503,
                         circuitState: "closed", notes: ["cache": "miss", "circuit.key": "api.example.com"]),
            TraceAttempt(number: 2, startedAt: at(300), requestSentAt: at(302), endedAt: at(750), error: "connection reset",
                         circuitState: "closed", retryReason: "status 503", retryDelay: 0.292),
            TraceAttempt(number: 3, startedAt: at(1000), requestSentAt: at(1010), firstByteAt: at(1100), endedAt: at(1250),
                         status: 201, circuitState: "half-open", retryReason: "connection reset", retryDelay: 0.25),
        ],
        events: [
            TraceEvent(kind: "retry", at: at(8), message: "retry in 292 ms", attributes: ["attempt": "1", "delayMs": "292"]),
            TraceEvent(kind: "circuit", at: at(750), message: "circuit api.example.com: closed → half-open",
                       attributes: ["from": "closed", "to": "half-open"]),
            TraceEvent(kind: "retry", at: at(750.5), message: "retry in 250 ms"),
        ],
        replayOf: Fixture.id(1))

    private var tabs: DetailTabs { DetailTabs(exchange: Self.exchange, calendar: Self.utc) }

    private func text(_ tab: DetailTab, _ view: BodyView = .pretty) -> [String] {
        tabs.lines(tab, bodyView: view, width: 80).map(\.text)
    }

    @Test func header() {
        #expect(tabs.header().map(\.text) == [
            "POST https://api.example.com/items?dry=1&tag=a%20b",
            "201 Created  duration 1.25 s  attempts 3  ↻ replay of 00000000-0000-0000-0000-000000000001",
        ])
    }

    @Test func labels() {
        #expect(DetailTab.tabs(for: nil).map(tabs.label) == ["Request", "Response", "Attempts 3", "Events 3", "Timing"])
        #expect(DetailTab.tabs(for: nil).map(\.title) == ["Request", "Response", "Attempts", "Events", "Timing"])
        #expect(DetailTab.allCases.map(\.title) == ["Request", "Response", "Attempts", "Events", "Timing", "Messages", "Contract"])
    }

    @Test func request() {
        #expect(text(.request) == [
            "operation createItem",
            "started 2023-11-14 22:13:20.000  outcome success",
            "id 6f9619ff-8b86-d011-b42d-00c04fc964ff  #42",
            "trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7",
            "",
            "Request  POST https://api.example.com/items?dry=1&tag=a%20b",
            "",
            "Query (2)",
            "  dry: 1",
            "  tag: a b",
            "",
            "Request headers (3)",
            "  Content-Type: application/json",
            "  traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "  Authorization: <redacted>",
            "",
            "Request body  28 B",
            "  {",
            #"    "name": "Zoë","#,
            #"    "price": 1.10"#,
            "  }",
        ])
    }

    @Test func response() {
        #expect(text(.response) == [
            "Response  201 Created",
            "",
            "Response headers (2)",
            "  Content-Type: application/json",
            "  Location: /items/7",
            "",
            "Response body  47 B",
            "  {",
            #"    "id": 12345678901234567890,"#,
            #"    "tags": [],"#,
            #"    "ok": true"#,
            "  }",
        ])
    }

    @Test func attempts() {
        #expect(text(.attempts) == [
            "#1  503 Service Unavailable  8.0 ms",
            "    timeline  start +0.0 ms  sent +1.0 ms  first byte +5.0 ms  end +8.0 ms",
            "    phases    send 1.0 ms  wait 4.0 ms  receive 3.0 ms",
            "    circuit   closed",
            "    notes     cache miss  circuit.key api.example.com",
            "",
            "#2  ERR  450 ms",
            "    timeline  start +300 ms  sent +302 ms  first byte —  end +750 ms",
            "    phases    send 2.0 ms  wait —  receive —",
            "    circuit   closed",
            "    retry     status 503  after 292 ms",
            "    error     connection reset",
            "",
            "#3  201 Created  250 ms",
            "    timeline  start +1.00 s  sent +1.01 s  first byte +1.10 s  end +1.25 s",
            "    phases    send 10 ms  wait 90 ms  receive 150 ms",
            "    circuit   half-open",
            "    retry     connection reset  after 250 ms",
            "",
            "Headers are kept for the final attempt only: see the Request and Response tabs.",
        ])
    }

    @Test func events() {
        #expect(text(.events) == [
            "+8.0 ms  22:13:20.008  retry  retry in 292 ms  attempt=1 delayMs=292",
            "+750 ms  22:13:20.750  circuit  circuit api.example.com: closed → half-open  from=closed to=half-open",
            "+750 ms  22:13:20.750  retry  retry in 250 ms",
        ])
    }

    @Test func timing() {
        #expect(text(.timing) == [
            "total 1.25 s  attempts 3  backoff 542 ms",
            "",
            "       0                            625 ms                       1.25 s",
            "       ├───────────────────────────────┼──────────────────────────────┤",
            "#1 503 ▍                                                                8.0 ms",
            "#2 ERR ┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈▐░░░░░░░░░░░░░░░░░░░░░░▍                          450 ms ✗",
            "#3 201                                       ┈┈┈┈┈┈┈┈┈┈┈┈┈▒░░░░████████ 250 ms",
            "",
            "▒ send  ░ wait  █ receive  ┈ backoff  ✗ error",
        ])
    }

    @Test func bodyViewsApplyToBothMessages() {
        let raw = text(.request, .raw)
        #expect(raw.suffix(2) == ["Request body  28 B", #"  {"name":"Zoë","price":1.10}"#])
        let hex = text(.response, .hex)
        #expect(hex[hex.count - 3] == "  0000  7b 22 69 64 22 3a 31 32  33 34 35 36 37 38 39 30  {\"id\":1234567890")
    }

    @Test func headerAndStylesForAFailure() {
        var exchange = Self.exchange
        exchange.status = nil
        exchange.outcome = .transportError
        exchange.error = "connection refused"
        exchange.responseHeaders = []
        exchange.responseBody = nil
        exchange.replayOf = nil
        let tabs = DetailTabs(exchange: exchange, calendar: Self.utc)
        #expect(tabs.header()[1].text == "no response  duration 1.25 s  attempts 3")
        #expect(tabs.header()[1].spans.map(\.style) == [.error, .dim, .normal, .dim, .normal])
        #expect(tabs.lines(.response, bodyView: .pretty, width: 80).map(\.text) == ["Response  no response: connection refused"])
    }

    @Test("a retry refused after a real 503: the detail says the answer, then the refusal (issue 43.8)")
    func headerOfARefusalAfterAnAnswer() {
        var exchange = Self.exchange
        exchange.status = 503
        exchange.outcome = .shortCircuited
        exchange.replayOf = nil
        let tabs = DetailTabs(exchange: exchange, calendar: Self.utc)
        #expect(tabs.header()[1].text == "503 Service Unavailable, then short-circuited  duration 1.25 s  attempts 3")
        #expect(StatusStyle.cell(for: exchange.summary).text == "SHRT")
    }

    @Test("a request a rule changed: the request tab shows what was sent, then what the app asked for (issue 43.7)")
    func theRequestBeforeTheRule() {
        var exchange = Self.exchange
        exchange.beforeRule = TraceRequest(
            method: "POST", url: "https://api.example.com/v1/items?page=2", headers: [TraceHeader(name: "x-app-only", value: "1")],
            body: TraceBody(data: Data(#"{"quantity":1}"#.utf8), size: 14, isTruncated: false))
        let text = DetailTabs(exchange: exchange, calendar: Self.utc).lines(.request, bodyView: .raw, width: 80).map(\.text)
        let sent = text.firstIndex { $0.hasPrefix("Request  ") }, before = text.firstIndex { $0.hasPrefix("Before the rule  ") }
        #expect(sent != nil && before != nil && sent! < before!, "\(text)")
        #expect(text.contains("Before the rule  POST https://api.example.com/v1/items?page=2"))
        #expect(text.contains("Headers before the rule (1)") && text.contains("  x-app-only: 1"))
        #expect(text.contains { $0.hasPrefix("Body before the rule") } && text.contains(#"  {"quantity":1}"#))
        #expect(text.contains("  as sent: a rule or an edit changed what the app asked for (below)"))
        #expect(!DetailTabs(exchange: Self.exchange, calendar: Self.utc).lines(.request, bodyView: .raw, width: 80)
            .contains { $0.text.hasPrefix("Before the rule") })
    }

    @Test func anExchangeInFlightWithNothingRecordedYet() {
        let exchange = TraceExchange(id: Fixture.id(9), operation: "", method: "GET", url: "https://h.test/",
                                     startedAt: Self.start, outcome: .success)
        let tabs = DetailTabs(exchange: exchange, calendar: Self.utc)
        #expect(tabs.header().map(\.text) == ["GET https://h.test/", "in flight  duration in flight  attempts 0"])
        #expect(tabs.lines(.response, bodyView: .raw, width: 80).map(\.text) == ["Response  waiting…"])
        #expect(tabs.lines(.attempts, bodyView: .raw, width: 80).map(\.text)
            == ["No attempts recorded: the request never reached the transport."])
        #expect(tabs.lines(.events, bodyView: .raw, width: 80).map(\.text) == ["No events recorded."])
        #expect(tabs.lines(.request, bodyView: .pretty, width: 80).map(\.text).suffix(5)
            == ["Request headers (0)", "  (none)", "", "Request body", "  (none)"])
    }

    @Test func recordedControlCharactersNeverReachALine() {
        var exchange = Self.exchange
        let evil = "\u{1B}]52;c;aGk=\u{07}\u{9B}2J\r\n\t"
        exchange.method += evil
        exchange.url += evil
        exchange.operation += evil
        exchange.error = evil
        exchange.requestHeaders.append(TraceHeader(name: "X" + evil, value: evil))
        exchange.responseHeaders = [TraceHeader(name: "Content-Type", value: "application/x-www-form-urlencoded" + evil)]
        exchange.requestBody = Fixture.body("{\"k\(evil)\":\"\(evil)\"}")
        exchange.responseBody = Fixture.body("a=%1B%9B&b\(evil)")
        exchange.attempts[1].error = evil
        exchange.attempts[1].circuitState = evil
        exchange.attempts[1].retryReason = evil
        exchange.attempts[1].notes = [evil: evil]
        exchange.events.append(TraceEvent(kind: .init(rawValue: evil), at: Self.at(1), message: evil, attributes: [evil: evil]))
        let tabs = DetailTabs(exchange: exchange, calendar: Self.utc)
        var all = tabs.header()
        for tab in DetailTab.allCases {
            for view in BodyView.allCases { all += tabs.lines(tab, bodyView: view, width: 80) }
        }
        all += DetailDocument(exchange: exchange, calendar: Self.utc).lines
        let unsafe = all.filter { $0.text.unicodeScalars.contains { TerminalText.isControl($0) } }
        #expect(unsafe.isEmpty, "\(unsafe.map(\.text))")
        #expect(all.contains { $0.text.contains("␛]52;c;aGk=␇") })
    }

    @Test func theDocumentIsEveryTabInTurn() {
        let document = DetailDocument(exchange: Self.exchange, calendar: Self.utc)
        // The same tabs, written for a document that has none (`loupe show`): only the pointer to the tabs differs.
        let printed = DetailTabs(exchange: Self.exchange, calendar: Self.utc, medium: .document)
        let attempts = printed.lines(.attempts, bodyView: .pretty, width: 80).map(\.text)
        #expect(attempts.dropLast() == text(.attempts).dropLast())
        #expect(attempts.last == "Headers are kept for the final attempt only: they are under Request and Response above.")
        var expected = tabs.header().map(\.text) + [""] + text(.request) + [""] + text(.response)
        expected += ["", "Attempts (3)"] + attempts + ["", "Events (3)"] + text(.events) + ["", "Timing"] + text(.timing)
        #expect(document.lines.map(\.text) == expected)
        #expect(document.plainText == expected.joined(separator: "\n"))
    }
}
