import Foundation
import Loupe
@testable import LoupeTrace
@testable import LoupeFilter
import Testing

@Suite("~since and ~until")
struct TimeFilterTests {
    /// 2026-12-06T23:40:00.750Z: the injected clock every relative time here counts back from.
    static let now = Date(timeIntervalSince1970: 1_796_600_400.75)
    static let utc = TimeZone(identifier: "UTC")!
    static let paris = TimeZone(identifier: "Europe/Paris")!

    private func instant(_ text: String, zone: TimeZone = utc) throws -> FilterInstant? {
        switch try TraceFilter.parse("~since " + text, now: Self.now, timeZone: zone) {
        case .since(let instant): instant
        default: nil
        }
    }

    @Test("a span counts back from the injected clock, to the whole second below", arguments: [
        ("10m", 1_796_599_800_000), ("2h", 1_796_593_200_000), ("3d", 1_796_341_200_000), ("90s", 1_796_600_310_000),
        ("1.5h", 1_796_595_000_000), ("0s", 1_796_600_400_000), ("0.25s", 1_796_600_400_000),
    ] as [(String, Int64)])
    func spans(text: String, milliseconds: Int64) throws {
        #expect(try instant(text)?.milliseconds == milliseconds)
    }

    @Test("ISO-8601 times, with a zone, with none (the given zone's wall clock), and dates alone", arguments: [
        ("2026-12-06T23:30:00Z", "UTC", 1_796_599_800_000),
        ("2026-12-06t23:30:00z", "UTC", 1_796_599_800_000),
        ("2026-12-06T23:30Z", "UTC", 1_796_599_800_000),
        ("2026-12-06T23:30:00.25Z", "UTC", 1_796_599_800_250),
        ("2026-12-06T23:30:00.123456789Z", "UTC", 1_796_599_800_123),
        ("2026-12-07T00:30:00+01:00", "UTC", 1_796_599_800_000),
        ("2026-12-07T00:30:00+0100", "UTC", 1_796_599_800_000),
        ("2026-12-06T20:30:00-03", "UTC", 1_796_599_800_000),
        ("2026-12-07T00:30:00", "Europe/Paris", 1_796_599_800_000),
        ("2026-07-01T02:00", "Europe/Paris", 1_782_864_000_000),  // summer time: +02:00
        ("2026-12-06", "UTC", 1_796_515_200_000),
        ("1970-01-01", "UTC", 0),
        ("1969-12-31T23:59:59.999Z", "UTC", -1),
        ("2024-02-29", "UTC", 1_709_164_800_000),
        ("0000-01-01T00:00:00Z", "UTC", -62_167_219_200_000),
        ("9999-12-31T23:59:59.999Z", "UTC", 253_402_300_799_999),
    ] as [(String, String, Int64)])
    func absolute(text: String, zone: String, milliseconds: Int64) throws {
        #expect(try instant("\"\(text)\"", zone: TimeZone(identifier: zone)!)?.milliseconds == milliseconds)
    }

    @Test("the canonical text is UTC ISO-8601 and reads back as the same instant, whatever the zone")
    func canonical() throws {
        let since = try TraceFilter.parse("~since 10m", now: Self.now, timeZone: Self.paris)
        #expect(since.description == "~since 2026-12-06T23:30:00Z")
        let until = try TraceFilter.parse("~until 2026-12-07T00:30:00.250", now: Self.now, timeZone: Self.paris)
        #expect(until.description == "~until 2026-12-06T23:30:00.250Z")
        for filter in [since, until, try TraceFilter.parse("~since 0000-01-01 & ~until 1969-12-31T23:59:59.9Z")] {
            #expect(try TraceFilter.parse(filter.description, now: .distantFuture, timeZone: Self.paris) == filter)
        }
    }

    @Test("~since is at or after, ~until before: the two split a store at one instant")
    func boundaries() throws {
        let t = try TraceFilter.parse("~since 2026-12-06T23:30:00Z", now: Self.now)
        let u = try TraceFilter.parse("~until 2026-12-06T23:30:00Z", now: Self.now)
        for (offset, inSince) in [(-0.001, false), (0, true), (0.001, true)] {
            let exchange = TraceExchange(id: UUID(), operation: "op", method: "GET", url: "https://a.test/",
                                         startedAt: Date(timeIntervalSince1970: 1_796_599_800 + offset), endedAt: nil, outcome: .success)
            #expect(t.matches(exchange) == inSince)
            #expect(u.matches(exchange) == !inSince)
            #expect(t.matches(exchange.summary) == inSince)
            #expect(u.matches(exchange.summary) == !inSince)
        }
    }

    @Test("bad times are one error at the argument", arguments: [
        "~since", "~since soon", "~since 10", "~since 10y", "~since -5m", "~since 1e12d", "~since inf", "~since 10M",
        "~since 2026-13-01", "~since 2026-02-29", "~since 2026-12-32", "~since 2026-12-06T24:00",
        "~since 2026-12-06T23:60", "~since 2026-12-06T23:30:60Z", "~since 2026-12-06T23:30:00.Z",
        "~since 2026-12-06T23:30+19:00", "~since 2026-12-06T23:30+01:", "~since 2026-12-06T23:30Zjunk", "~until 26-12-06",
        "~until 10000-01-01", "~until 2026-1-6", "~since 2026-12-06T23",
    ])
    func errors(text: String) {
        let error = #expect(throws: TraceFilterError.self) { try TraceFilter.parse(text, now: Self.now) }
        #expect(error?.position == 8 || error?.position == 7, "\(text)")
        #expect(error?.description.contains("expected a time like 10m, 2h, 3d or 2026-12-06T23:30:00Z after ~") == true, "\(text)")
    }
}
