import Foundation
import Loupe
@testable import LoupeTrace
@testable import LoupeFormats

/// Inputs for the streaming export and import tests: varied exchanges, the old whole-document encoding to compare
/// against, and large generated HAR files.
enum HARStreamFixtures {
    /// A new seed each run: a failure names it.
    static func seed() -> UInt64 { UInt64.random(in: 1...UInt64.max) }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Text meant to trip an encoder or a tokenizer: JSON's specials, every control character, slashes, bytes
    /// past ASCII (two, three and four bytes long), a combining accent, line and paragraph separators.
    static let awkward: [String] = [
        "", "plain", "]", "}", "\"", "\\", "\\\"", "[{\"a\":\"b\"}]", "/", "</script>", "tab\there", "line\nbreak",
        "\u{0}", "\u{1}\u{1f}\u{7f}", "Zoë", "e\u{301}", "\u{2028}\u{2029}", "😀", "\u{FEFF}bom", "日本語",
        "\\u0041 not an escape", "a\rb\u{8}c\u{c}d", "{\"nested\": [1, 2, {\"x\": \"]}\"}]}",
    ]

    /// Repeatable choices over the one seeded generator.
    struct Random {
        var generator: SeededGenerator
        init(state: UInt64) { generator = SeededGenerator(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func text() -> String { pick(HARStreamFixtures.awkward) + (chance(50) ? String(below(1000)) : "") }
        mutating func maybe<T>(_ percent: Int, _ make: (inout Random) -> T) -> T? { chance(percent) ? make(&self) : nil }
        mutating func date() -> Date {
            Date(timeIntervalSince1970: pick([1_700_000_000.0, -86_400.5, 0, 4_102_444_800]) + Double(below(1_000_000_000)) / 1e6)
        }
        mutating func strings() -> [String: String] {
            var result: [String: String] = [:]
            for _ in 0..<below(5) { result[pick(["cache", "Circuit.Key", "_x", "a10", "a9", "é", "e\u{301}x", "~", "Z", "😀"]) + text()] = text() }
            return result
        }
    }

    /// `count` exchanges with every optional present or not, awkward text everywhere, UTF-8 and binary bodies,
    /// cookies, locations, queries, attempts with notes, events with attributes.
    static func exchanges(count: Int, seed: UInt64 = 7) -> [TraceExchange] {
        var random = Random(state: seed)
        return (0..<count).map { index in exchange(index, &random) }
    }

    static func exchange(_ index: Int, _ random: inout Random) -> TraceExchange {
        let start = random.date()
        func headers(_ random: inout Random) -> [TraceHeader] {
            (0..<random.below(7)).map { _ in
                TraceHeader(name: random.pick(["Content-Type", "content-type", "Cookie", "set-cookie", "SET-COOKIE",
                                               "Location", "X-\u{212A}", "coo\u{212A}ie", "Accept"]),
                            value: random.pick(["a=1; b=2", "id=3; Path=/; Domain=x.test; HttpOnly; Secure",
                                                RedactionPolicy.marker, "application/json", "text/plain; charset=utf-8"])
                                + (random.chance(30) ? random.text() : ""))
            }
        }
        func body(_ random: inout Random) -> TraceBody {
            let data = random.chance(70) ? Data(random.text().utf8) : Data((0..<random.below(40)).map { _ in UInt8(random.below(256)) })
            let truncated = random.chance(20)
            return TraceBody(data: data, size: data.count + (truncated ? random.below(5000) : 0), isTruncated: truncated)
        }
        let attempts = (0..<random.below(4)).map { number in
            TraceAttempt(
                number: number + 1, startedAt: start.addingTimeInterval(Double(number)),
                requestSentAt: random.maybe(70) { _ in start.addingTimeInterval(Double(number) + 0.001_5) },
                firstByteAt: random.maybe(60) { _ in start.addingTimeInterval(Double(number) + 0.25) },
                endedAt: random.maybe(80) { _ in start.addingTimeInterval(Double(number) + 0.5) },
                status: random.maybe(70) { $0.pick([200, 503, 99, 1000]) }, error: random.maybe(30) { $0.text() },
                circuitState: random.maybe(50) { $0.pick(["closed", "open", "half-open"]) },
                retryReason: random.maybe(30) { $0.text() },
                retryDelay: random.maybe(40) { $0.pick([0, 1e-7, 0.199_25, 123_456.789, 1e20]) }, notes: random.strings())
        }
        let events = (0..<random.below(3)).map { _ in
            TraceEvent(kind: ExchangeEventKind(rawValue: random.pick(["retry", "circuit", "x-\u{1}"])),
                       at: start.addingTimeInterval(0.1), message: random.text(), attributes: random.strings())
        }
        let url = random.pick(["https://api.example.test/v1/items", "https://api.example.test/a%20b?x=1&y=%C3%A9&z",
                               "http://127.0.0.1:8080/?q=]}\"", "not a url", "https://h.test/p#frag?x=1", ""])
            + (random.chance(30) ? "?n=\(index)" : "")
        return TraceExchange(
            id: UUID(), operation: random.text(), method: random.pick(["GET", "POST", "PUT", "DELETE", "Ünicode"]),
            url: url, startedAt: start, endedAt: random.maybe(90) { _ in start.addingTimeInterval(1.234_567) },
            outcome: random.pick(ExchangeOutcome.allCases), status: random.maybe(80) { $0.pick([200, 201, 304, 404, 503]) },
            error: random.maybe(20) { $0.text() }, requestHeaders: headers(&random),
            requestBody: random.maybe(40) { body(&$0) }, responseHeaders: headers(&random),
            responseBody: random.maybe(70) { body(&$0) }, attempts: attempts, events: events,
            replayOf: random.maybe(10) { _ in UUID() })
    }

    /// The HAR as one `JSONEncoder` over the whole document gives it (what export wrote before it streamed), with
    /// the final newline the writer adds.
    static func wholeDocument(_ exchanges: [TraceExchange]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(HARWriter.microseconds(date.timeIntervalSince1970))
        }
        // What the encoder writes, with the characters Loupe's JSON escapes although JSON allows them raw (DECISIONS 87).
        let encoded = String(decoding: try encoder.encode(HARExporter().document(for: exchanges)), as: UTF8.self)
        return Data(JSONInvisibles.escaped(encoded).utf8) + Data("\n".utf8)
    }

    /// A browser-style entry (no `_loupe`) of about 1.4 KB, different for each `index`.
    static func browserEntry(_ index: Int) -> String {
        let body = #"{\"id\":\#(index),\"name\":\"item \#(index)\",\"tags\":[\"a]\",\"b}\",\"c\\\\\"],\"note\":\"\u00e9\u2028\"}"#
        return #"""
            {"startedDateTime": "2024-03-10T10:00:\#(String(format: "%02d", index % 60)).\#(String(format: "%03d", index % 1000))Z", "time": 12.5,
             "request": {"method": "GET", "url": "https://api.example.test/v1/items/\#(index)?page=\#(index % 7)&q=%5D%7D", "httpVersion": "HTTP/1.1",
              "headers": [{"name": "Accept", "value": "application/json"}, {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"},
                          {"name": "Accept-Language", "value": "en-GB,en;q=0.9"}, {"name": "X-Request-Id", "value": "req-\#(index)-0f3c9a"}],
              "queryString": [{"name": "page", "value": "\#(index % 7)"}], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \#(index % 10 == 0 ? 503 : 200), "statusText": "", "httpVersion": "HTTP/1.1",
              "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Cache-Control", "value": "no-cache, no-store, must-revalidate"},
                          {"name": "Date", "value": "Sun, 10 Mar 2024 10:00:00 GMT"}, {"name": "Server", "value": "nginx"}],
              "cookies": [], "content": {"size": -1, "mimeType": "application/json", "text": "\#(body)"},
              "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"blocked": 0.5, "dns": -1, "connect": -1, "ssl": -1, "send": 0.25, "wait": 10.5, "receive": 1.25},
             "_comment": "padding so the entry is about the size of a real one: \#(String(repeating: "x", count: 200))"}
            """#
    }

    /// Writes a HAR of `count` browser-style entries to `path`, entry by entry.
    static func writeBrowserHAR(count: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(#"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["#.utf8))
        for index in 0..<count {
            try handle.write(contentsOf: Data(((index == 0 ? "\n" : ",\n") + browserEntry(index)).utf8))
        }
        try handle.write(contentsOf: Data("\n]}}\n".utf8))
    }
}
