import Foundation
import LoupeTrace
import LoupeTUI
import Testing

@Suite struct DetailViewTests {
    /// The detail view of `exchange` at `size`, scrolled by `keys`.
    private func detail(_ exchange: TraceExchange, size: Size = Size(width: 80, height: 24), keys: [Key] = []) -> InspectorState {
        var state = InspectorState(storeName: "s", size: size, canReplay: true, timeZone: .gmt)
        _ = state.update(.summariesLoaded([exchange.summary], through: 1, total: 1))
        _ = state.update(.key(.enter))
        _ = state.update(.detailLoaded(exchange))
        for key in keys { _ = state.update(.key(key)) }
        return state
    }

    /// The whole document, as plain lines.
    private func document(_ exchange: TraceExchange, width: Int = 80) -> [String] {
        detail(exchange, size: Size(width: width, height: 24)).detail!.wrapped.map(\.text)
    }

    @Test func showsTheRequestLineHeadersAndPrettyJSONWithSortedKeys() {
        let exchange = Fixture.exchange(
            1, method: "POST", url: "https://api.example.com/users",
            requestHeaders: [TraceHeader(name: "Content-Type", value: "application/json"),
                             TraceHeader(name: "Authorization", value: "<redacted>")],
            requestBody: Fixture.body(#"{"name":"Zoë","age":7}"#),
            responseBody: Fixture.body(#"{"z":1,"a":{"c":[true,null],"b":"x/y"}}"#))
        let lines = document(exchange)
        #expect(lines[0] == "POST https://api.example.com/users")
        #expect(lines.contains("  Authorization: <redacted>"))
        let requestBody = try! #require(lines.firstIndex { $0.hasPrefix("Request body") })
        #expect(lines[requestBody + 1] == "  {")
        #expect(lines[requestBody + 2].contains(#""age""#))
        #expect(lines[requestBody + 3].contains(#""name""#))
        #expect(lines[requestBody + 3].contains("Zoë"))
        #expect(lines.contains("Response  200 OK"))
        let responseBody = try! #require(lines.firstIndex { $0.hasPrefix("Response body") })
        let json = lines[(responseBody + 1)...].prefix { !$0.isEmpty }.joined(separator: "\n")
        let a = try! #require(json.range(of: #""a""#)), z = try! #require(json.range(of: #""z""#))
        #expect(a.lowerBound < z.lowerBound)
        #expect(json.contains(#""x/y""#))
    }

    @Test func binaryBodiesGetASummaryAndAHexdump() {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0xFE] + Array(repeating: 0x41, count: 300))
        let exchange = Fixture.exchange(1, responseHeaders: [TraceHeader(name: "Content-Type", value: "image/png")],
                                        responseBody: TraceBody(data: bytes, size: bytes.count, isTruncated: false))
        let lines = document(exchange)
        #expect(lines.contains("  <binary, 307 bytes>"))
        #expect(lines.contains { $0.hasPrefix("  0000  89 50 4e 47 00 ff fe 41") && $0.hasSuffix(".PNG...AAAAAAAAA") })
        #expect(lines.contains("  … 51 more bytes"))
    }

    @Test func invalidUTF8IsBinaryButATruncatedMultibyteTailIsText() {
        let invalid = TraceBody(data: Data([0x68, 0x69, 0xC3, 0x28]), size: 4, isTruncated: false)
        #expect(document(Fixture.exchange(1, responseHeaders: [], responseBody: invalid)).contains("  <binary, 4 bytes>"))
        let cut = TraceBody(data: Data("héllo 日".utf8.dropLast(1)), size: 100, isTruncated: true)
        let lines = document(Fixture.exchange(1, responseHeaders: [], responseBody: cut))
        #expect(lines.contains("  héllo "))
        #expect(lines.contains("  (truncated: 9 of 100 bytes stored)"))
    }

    @Test func truncatedJSONIsShownAsTextWithANote() {
        let body = Fixture.body(#"{"items":[1,2,"#, truncatedFrom: 4096)
        let lines = document(Fixture.exchange(1, responseBody: body))
        #expect(lines.contains(#"  {"items":[1,2,"#))
        #expect(lines.contains("  (truncated: 14 of 4,096 bytes stored)"))
        #expect(lines.contains { $0.hasPrefix("Response body") && $0.contains("truncated") })
    }

    @Test func attemptsShowTimingsRetriesAndCircuitState() {
        let exchange = Fixture.exchange(1, status: 200, attempts: 2, events: [
            TraceEvent(kind: "retry", at: Fixture.epoch.addingTimeInterval(1.008), message: "retry in 200 ms",
                       attributes: ["delay": "0.2", "attempt": "1"]),
        ])
        let lines = document(exchange, width: 120)
        #expect(lines.contains("Attempts (2)"))
        #expect(lines.contains { $0.hasPrefix("  #1  503 Service Unavailable  start +0.0 ms  sent +1.0 ms  first byte +5.0 ms  end +8.0 ms") })
        #expect(lines.contains { $0.hasPrefix("  #2  200 OK  start +10.0 ms") })
        #expect(lines.contains("      retry: status 503  after 200.0 ms  circuit closed"))
        #expect(lines.contains("  +8.0 ms  retry  retry in 200 ms  attempt=1 delay=0.2"))
    }

    @Test func transportErrorsAndReplaysAreExplained() {
        let exchange = Fixture.exchange(2, status: nil, outcome: .transportError, error: "connection refused",
                                        replayOf: Fixture.id(1))
        let lines = document(exchange)
        #expect(lines.contains("Response  no response: connection refused"))
        #expect(lines.contains { $0.hasPrefix("↻ replay of 00000000-0000-0000-0000-000000000001") })
        #expect(lines.contains("      error: connection refused"))
    }

    @Test func longLinesWrapAndTheViewScrolls() {
        let value = String(repeating: "abcdefghij", count: 20)
        let body = Fixture.body((1...100).map { "line \($0)" }.joined(separator: "\n"))
        let exchange = Fixture.exchange(1, requestHeaders: [TraceHeader(name: "Cookie", value: value)], responseBody: body)
        let state = detail(exchange)
        let wrapped = state.detail!.wrapped.map(\.text)
        #expect(wrapped.allSatisfy { DisplayWidth.of($0) <= 80 })
        #expect(wrapped.contains { $0.hasPrefix("  Cookie: abcdefghij") })
        #expect(wrapped.contains { $0.hasPrefix("    cdefghij") || $0.hasPrefix("    ") && $0.contains("abcdefghij") })

        let screen = InspectorRenderer.render(state)
        #expect(screen.lines[1].hasPrefix("GET https://api.example.com/items/1"))
        #expect(screen.lines[22].contains("lines 1–21 of \(wrapped.count)"))

        let scrolled = detail(exchange, keys: [.down, "j", .pageDown])
        #expect(scrolled.detail!.scroll == 2 + 21)
        let bottom = detail(exchange, keys: ["G"])
        #expect(bottom.detail!.scroll == wrapped.count - 21)
        #expect(InspectorRenderer.render(bottom).text.contains("(none)"))
        let back = detail(exchange, keys: ["G", "k", "g"])
        #expect(back.detail!.scroll == 0)
    }

    @Test func recordedControlCharactersArePicturesInTheDocumentItself() {
        var exchange = Fixture.exchange(1, status: 500, outcome: .httpError, error: "boom\u{1B}[0m",
                                        responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain\r\nX-Fake: 1\tz")])
        exchange.url = "https://api.example.com/\u{1B}[2J"
        let lines = DetailDocument(exchange: exchange, calendar: Calendar(identifier: .gregorian)).lines.map(\.text)
        #expect(!lines.contains { $0.unicodeScalars.contains { TerminalText.isControl($0) } })
        #expect(lines[0] == "GET https://api.example.com/␛[2J")
        #expect(lines.contains("  Content-Type: text/plain␍␊X-Fake: 1␉z"))
        #expect(lines.contains("Response  500 Internal Server Error  error: boom␛[0m"))
    }

    @Test func aMissingExchangeSaysSo() {
        var state = detail(Fixture.exchange(1))
        _ = state.update(.key(.escape))
        _ = state.update(.key(.enter))
        _ = state.update(.detailFailed(id: Fixture.id(1), reason: "This exchange is no longer in the store."))
        #expect(InspectorRenderer.render(state).lines[1] == "This exchange is no longer in the store.".padding(toLength: 80, withPad: " ", startingAt: 0))
    }
}
