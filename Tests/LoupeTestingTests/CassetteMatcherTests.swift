import Foundation
import LoupeTesting
import LoupeTrace
import Testing

@Suite("Cassette matchers")
struct CassetteMatcherTests {
    private func request(_ method: String = "GET", _ url: String, headers: [TraceHeader] = [], body: String = "")
        -> CassetteRequest {
        CassetteRequest(method: method, url: url, headers: headers, body: Data(body.utf8))
    }

    private func verdict(_ matcher: CassetteMatcher, live: CassetteRequest, recorded: CassetteRequest) -> CassetteMatcher.Verdict {
        matcher.verdict(live: live, recorded: recorded)
    }

    @Test func methodAndPathCompareExactly() {
        let recorded = request("POST", "https://a.test/items/1")
        #expect(verdict(.method, live: request("POST", "https://b.test/items/1"), recorded: recorded) == .match)
        #expect(verdict(.method, live: request("GET", "https://a.test/items/1"), recorded: recorded) == .mismatch("POST vs GET"))
        #expect(verdict(.path, live: request("POST", "https://b.test/items/1?x=1"), recorded: recorded) == .match)
        #expect(verdict(.path, live: request("POST", "https://a.test/items/2"), recorded: recorded)
            == .mismatch("/items/1 vs /items/2"))
    }

    @Test func queryIgnoresOrderButCountsRepeats() {
        let recorded = request("GET", "https://a.test/s?b=2&a=1&tag=x&tag=y")
        #expect(verdict(.query, live: request("GET", "https://a.test/s?tag=y&a=1&tag=x&b=2"), recorded: recorded) == .match)
        #expect(verdict(.query, live: request("GET", "https://a.test/s?b=2&a=1&tag=x"), recorded: recorded)
            == .mismatch("tag=y vs none"))
        #expect(verdict(.query, live: request("GET", "https://a.test/s?b=3&a=1&tag=x&tag=y"), recorded: recorded)
            == .mismatch("b=2 vs b=3"))
        #expect(verdict(.query, live: request("GET", "https://a.test/s?a=%31&b=2&tag=x&tag=y"), recorded: recorded) == .match,
                "values compare decoded")
        #expect(verdict(.query, live: request("GET", "https://a.test/s"), recorded: request("GET", "https://a.test/s?")) == .match)
    }

    @Test func urlAndHostSeeTheServer() {
        let recorded = request("GET", "http://127.0.0.1:8080/items?page=1")
        #expect(verdict(.url, live: request("GET", "http://127.0.0.1:8080/items?page=1"), recorded: recorded) == .match)
        #expect(verdict(.url, live: request("GET", "http://127.0.0.1:9090/items?page=1"), recorded: recorded)
            == .mismatch("http://127.0.0.1:8080/items?page=1 vs http://127.0.0.1:9090/items?page=1"))
        #expect(verdict(.host, live: request("GET", "http://127.0.0.1:8080/other"), recorded: recorded) == .match)
        #expect(verdict(.host, live: request("GET", "http://LOCALHOST:8080/items"), recorded: recorded)
            == .mismatch("127.0.0.1:8080 vs localhost:8080"))
    }

    @Test func headersCompareOnlyTheNamedOnesInAnyCase() {
        let recorded = request("GET", "https://a.test/", headers: [
            TraceHeader(name: "Accept", value: "application/json"), TraceHeader(name: "X-Request-Id", value: "1"),
        ])
        let live = request("GET", "https://a.test/", headers: [
            TraceHeader(name: "accept", value: "application/json"), TraceHeader(name: "X-Request-Id", value: "2"),
        ])
        #expect(verdict(.headers(["ACCEPT"]), live: live, recorded: recorded) == .match)
        #expect(verdict(.headers(["Accept", "X-Request-Id"]), live: live, recorded: recorded) == .mismatch("X-Request-Id: 1 vs 2"))
        #expect(verdict(.headers(["X-Version"]), live: live, recorded: recorded) == .match, "absent on both sides")
        #expect(verdict(.headers(["Accept"]), live: request("GET", "https://a.test/"), recorded: recorded)
            == .mismatch("Accept: application/json vs absent"))
    }

    @Test func bodyIsEqualAsJSONWhenBothAreJSON() {
        let recorded = request("POST", "https://a.test/", body: #"{"a": 1.0, "b": [1, {"c": "x"}]}"#)
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: #"{"b":[1,{"c":"x"}],"a":1}"#), recorded: recorded)
            == .match)
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: #"{"b":[1,{"c":"y"}],"a":1}"#), recorded: recorded)
            == .mismatch(#"$.b[1].c: "x" vs "y""#))
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: #"{"b":[1,{"c":"x"}]}"#), recorded: recorded)
            == .mismatch("$.a: 1.0 vs absent"))
        #expect(verdict(.bodyBytes, live: request("POST", "https://a.test/", body: #"{"b":[1,{"c":"x"}],"a":1}"#), recorded: recorded)
            == .mismatch("32 bytes vs 25 bytes"))
    }

    @Test func bodyComparesBytesWhenNotJSON() {
        let recorded = request("POST", "https://a.test/", body: "name=a")
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: "name=a"), recorded: recorded) == .match)
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: "name=b"), recorded: recorded)
            == .mismatch("6 bytes, contents differ"))
        #expect(verdict(.body, live: request("POST", "https://a.test/", body: "{}"), recorded: recorded)
            == .mismatch("6 bytes vs 2 bytes"))
    }

    @Test func customMatchersJudgeWithAClosure() {
        let tenant = CassetteMatcher.custom("tenant") { live, recorded in
            live.values(ofHeader: "X-Tenant") == recorded.values(ofHeader: "X-Tenant")
        }
        let recorded = request("GET", "https://a.test/", headers: [TraceHeader(name: "X-Tenant", value: "a")])
        #expect(tenant.name == "tenant")
        #expect(verdict(tenant, live: recorded, recorded: recorded) == .match)
        #expect(verdict(tenant, live: request("GET", "https://a.test/"), recorded: recorded) == .mismatch(nil))
    }

    @Test func verdictDetailsShowControlCharactersAndStayShort() {
        let recorded = request("GET", "https://a.test/s?q=" + String(repeating: "a", count: 100))
        guard case .mismatch(let detail?) = verdict(.query, live: request("GET", "https://a.test/s?q=%1B%5B2J"), recorded: recorded)
        else { Issue.record("expected a mismatch with a detail"); return }
        #expect(detail.hasSuffix(" vs q=␛[2J"))
        #expect(detail.hasPrefix("q=" + String(repeating: "a", count: 57) + "…"))
    }

    @Test func theDefaultIsMethodPathAndQuery() {
        #expect([CassetteMatcher].default.map(\.name) == ["method", "path", "query"])
    }
}
