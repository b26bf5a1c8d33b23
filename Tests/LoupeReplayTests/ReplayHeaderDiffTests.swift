import Foundation
@testable import LoupeTrace
@testable import LoupeReplay
import Testing

@Suite("Replay diff: headers")
struct ReplayHeaderDiffTests {
    static func headers(_ pairs: KeyValuePairs<String, String>) -> [TraceHeader] {
        pairs.map { TraceHeader(name: $0.key, value: $0.value) }
    }

    static func diff(_ old: KeyValuePairs<String, String>, _ new: KeyValuePairs<String, String>) -> [String] {
        HeaderDiff.differences(headers(old), headers(new)).map(\.description)
    }

    @Test("volatile headers are left out by default: dates, request and trace ids, timings, lengths")
    func volatile() {
        #expect(Self.diff(
            ["Date": "Mon, 01 Jan 2024 00:00:00 GMT", "X-Request-Id": "a", "X-Amzn-RequestId": "b", "traceparent": "00-1-2-01",
             "tracestate": "x=1", "Age": "3", "Expires": "Mon, 01 Jan 2024 00:01:00 GMT", "X-Correlation-Id": "c", "Content-Length": "10"],
            ["Date": "Tue, 02 Jan 2024 00:00:00 GMT", "X-Request-Id": "z", "X-Amzn-RequestId": "y", "traceparent": "00-3-4-01",
             "tracestate": "x=2", "Age": "9", "Expires": "Tue, 02 Jan 2024 00:01:00 GMT", "X-Correlation-Id": "d", "Content-Length": "12"]
        ) == [])
        // With no volatile list, they are all reported.
        let all = HeaderDiff.differences(Self.headers(["Date": "a", "X-Request-Id": "1"]), Self.headers(["Date": "b", "X-Request-Id": "2"]), ignoring: [])
        #expect(all.map(\.description) == ["header:Date: a → b", "header:X-Request-Id: 1 → 2"])
    }

    @Test("names compare without case; changed, added and removed, in the original's order")
    func changes() {
        #expect(Self.diff(
            ["Content-Type": "application/json", "Cache-Control": "no-cache", "X-Old": "1"],
            ["cache-control": "max-age=60", "content-type": "application/json", "X-New": "2"]
        ) == ["header:Cache-Control: no-cache → max-age=60", "header:X-Old: removed 1", "header:X-New: added 2"])
    }

    @Test("repeated names compare as their list of values, in order")
    func repeated() {
        #expect(Self.diff(["Vary": "Accept", "Vary": "Origin"], ["Vary": "Accept"]) == ["header:Vary: Accept, Origin → Accept"])
        #expect(Self.diff(["Link": "a", "Link": "b"], ["Link": "a", "Link": "b"]) == [])
    }

    @Test("Set-Cookie is compared without its expiry attributes")
    func cookies() {
        #expect(HeaderDiff.normalized(name: "Set-Cookie", value: "id=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/; max-age=60; HttpOnly")
                == "id=1; Path=/; HttpOnly")
        #expect(Self.diff(["Set-Cookie": "id=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/"],
                          ["Set-Cookie": "id=1; Expires=Thu, 22 Oct 2015 07:28:00 GMT; Path=/"]) == [])
        #expect(Self.diff(["Set-Cookie": "id=1; Max-Age=60"], ["Set-Cookie": "id=2; Max-Age=30"]) == ["header:Set-Cookie: id=1 → id=2"])
    }

    @Test("a redacted value is never compared, so the other side's secret is never shown")
    func redacted() {
        #expect(Self.diff(["Set-Cookie": "[REDACTED]"], ["Set-Cookie": "session=s3cr3t"]) == [])
        #expect(Self.diff(["X-Token": "[REDACTED]"], [:]) == [])
    }
}
