import Foundation
import HTTPTypes
import Loupe
import LoupeFilter
@testable import LoupeRules
import LoupeTesting
import LoupeTrace
import Testing

/// The compiled index (`RuleIndex`: a precheck by operation and method, and each filter compiled) agrees with the
/// reference matcher (`RuleSubject.matches`) on seeded random filters and requests: it never skips a rule that
/// would match, and never lets one through that would not.
@Suite struct RuleIndexTests {
    /// Seeded choices; the same seed makes the same filters and requests.
    struct Draw {
        let source: SeededRandomSource
        func pick<T>(_ options: [T]) -> T { options[Int(source.next() % UInt64(options.count))] }
        func chance(_ percent: UInt64) -> Bool { source.next() % 100 < percent }
    }

    // Spellings that differ only canonically (é composed and decomposed) must never be confused: filters compare bytes.
    static let operations = ["getUser", "createOrder", "listOrders", "GET /v1/ping", "caf\u{E9}", "cafe\u{301}", ""]
    static let methods = ["GET", "POST", "DELETE", "PUT"]
    /// The terms the parser accepts (it refuses some of these hosts; which ones is its business, not this test's).
    static let terms = candidateTerms.filter { (try? TraceFilter.parse($0)) != nil }
    static let candidateTerms = [
        "~op getUser", "~op createOrder", "~op listOrders", "~op \"GET /v1/ping\"", "~op caf\u{E9}", "~op cafe\u{301}",
        "~m GET", "~m POST", "~m DELETE", "~m get",
        "~d example", "~d EXAMPLE.com", "~d other.example", "~d ::1", "~d 8080", "~d h\u{F4}st", "~d \"\"",
        "~u users", "~u /users/\\d+", "~u ping$", "~u ^https:", "users",
        "~h \"^authorization: bearer\"", "~h x-a", "~b sku", "~b \"(?i)SKU\"",
        "~att 1", "~att >1", "~att <=2",
        "~c 5xx", "~e", "~dur >1s", "~rule twice", "~src app", "~replay", "~cb open",
    ]
    static let authorities: [String?] = [
        "api.example.com:8080", "other.example", "[::1]:80", "[::1", "EXAMPLE.COM", "h\u{F4}st.example:1",
        "host:\u{301}8080", "a\r\nb:1", "", nil,
    ]

    static func filterText(_ draw: Draw, depth: Int) -> String {
        if depth == 0 || draw.chance(35) { return draw.pick(terms) }
        switch draw.source.next() % 4 {
        case 0: return "!" + (draw.chance(50) ? draw.pick(terms) : "(\(filterText(draw, depth: depth - 1)))")
        case 1: return "(\(filterText(draw, depth: depth - 1)) & \(filterText(draw, depth: depth - 1)))"
        case 2: return "(\(filterText(draw, depth: depth - 1)) | \(filterText(draw, depth: depth - 1)))"
        default: return "\(filterText(draw, depth: depth - 1)) \(filterText(draw, depth: depth - 1))"
        }
    }

    static func subject(_ draw: Draw) -> RuleSubject {
        var headers = HTTPFields()
        if draw.chance(50) { headers[.authorization] = "Bearer x" }
        if draw.chance(30) { headers[HTTPField.Name("x-a")!] = "1" }
        let request = HTTPRequest(method: HTTPRequest.Method(draw.pick(methods))!, scheme: draw.pick(["http", "https", nil]),
                                  authority: draw.pick(authorities), path: draw.pick(["/users/1", "/v1/ping", "/orders", nil]),
                                  headerFields: headers)
        let body = draw.pick([nil, "{\"sku\":\"A1\"}", "{\"SKU\":1}", ""]).map { Data($0.utf8) }
        return RuleSubject(request: request, body: body, operation: draw.pick(operations), attempt: Int(draw.source.next() % 3) + 1)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func theCompiledIndexAgreesWithTheReferenceMatcher(seed: UInt64) throws {
        #expect(Self.terms.count >= Self.candidateTerms.count - 4, "refused: \(Set(Self.candidateTerms).subtracting(Self.terms))")
        let draw = Draw(source: SeededRandomSource(seed: seed))
        var checked = 0, matched = 0, admitted = 0
        for _ in 0..<300 {
            let filters = try (0..<Int(draw.source.next() % 6 + 1)).map { _ in try TraceFilter.parse(Self.filterText(draw, depth: 3)) }
            let index = RuleIndex(filters: filters)
            for _ in 0..<20 {
                let subject = Self.subject(draw)
                var facts = RequestFacts(subject)
                for filter in filters {
                    let reference = subject.matches(filter)
                    #expect(RuleTest(filter).matches(&facts) == reference, "\(filter) on \(subject.request) \(subject.operation)")
                    let admits = RulePrecheck(filter).admits(operation: subject.operation, method: subject.request.method.rawValue)
                    if reference { #expect(admits, "the precheck of \(filter) skipped a request it matches") }
                    if admits { admitted += 1 }
                    if reference { matched += 1 }
                    checked += 1
                }
                var fresh = RequestFacts(subject)
                #expect(index.mayMatch(&fresh) == filters.contains { subject.matches($0) }, "\(filters)")
                var again = RequestFacts(subject)
                #expect(Array(index.matching(&again)) == filters.indices.filter { subject.matches(filters[$0]) },
                        "every matching position once, in order: \(filters) on \(subject.operation)")
            }
        }
        // The draws cover both answers, and the precheck does turn requests away.
        #expect(matched > checked / 20 && matched < checked - checked / 20, "matched \(matched) of \(checked)")
        #expect(admitted < checked, "the precheck admitted everything")
    }

    /// The book decides from the index's positions (no reference matcher) when its generation is the index's:
    /// the same decisions, hits and spent rules as deciding every rule in full, with limits and seeded
    /// probabilities in play, request after request on one evolving book.
    @Test(arguments: [UInt64(5), 6, 7])
    func decidingFromTheIndexsPositionsIsDecidingInFull(seed: UInt64) throws {
        let draw = Draw(source: SeededRandomSource(seed: seed))
        let actions: [RuleAction] = [
            .mock(RuleMock(status: 200)), .fault(.status(503)), .fault(.timeout),
            .rewrite(RuleRewrite(setHeaders: [TraceHeader(name: "x-b", value: "1")])), .breakpoint(RuleBreakpoint()),
            .breaker(key: "k", override: .open),
        ]
        var decided = 0, spent = 0
        for _ in 0..<100 {
            var full = RuleBookState()
            for number in 0..<Int(draw.source.next() % 6 + 1) {
                let limits = RuleLimits(times: draw.chance(40) ? Int(draw.source.next() % 3) + 1 : nil,
                                        enabled: !draw.chance(15), probability: draw.chance(30) ? 0.5 : 1)
                full.put(try Rule(name: "r\(number)", match: Self.filterText(draw, depth: 2), action: draw.pick(actions),
                                  limits: limits), origin: .code)
            }
            var fromIndex = full
            var index = RuleIndex(fromIndex.entries)
            let fullDraws = SeededRandomSource(seed: seed), indexDraws = SeededRandomSource(seed: seed)
            for _ in 0..<30 {
                let subject = Self.subject(draw)
                let expected = full.decide(subject, now: Date(), draw: fullDraws.nextUnit)
                var facts = RequestFacts(subject)
                let positions = index.matching(&facts)
                let decision = fromIndex.decide(positions: positions, now: Date(), draw: indexDraws.nextUnit) { _ in true }
                #expect(decision == expected && fromIndex == full, "\(full.entries.map(\.rule.match)) on \(subject.request)")
                if decision.spent { index = RuleIndex(fromIndex.entries); spent += 1 }
                if !decision.isEmpty { decided += 1 }
            }
        }
        #expect(decided > 100 && spent > 10, "decided \(decided), spent \(spent)")
    }

    @Test func aPreparedAnswerIsWordedOnceAndAMocksResponseBuiltOnce() throws {
        let mock = RuleMock(status: 201, headers: [TraceHeader(name: "content-type", value: "text/plain")],
                            body: Data("hi".utf8), recordedFrom: 7)
        var state = RuleBookState()
        state.put(try Rule(name: "m", match: "~op a", action: .mock(mock)), origin: .code)
        state.put(try Rule(name: "f", match: "~op b", action: .fault(.status(503))), origin: .code)
        state.put(try Rule(name: "w", match: "~op c", action: .rewrite(RuleRewrite())), origin: .code)
        let index = RuleIndex(state.entries, generation: 3)
        #expect(index.generation == 3 && index.answers.count == 2, "mocks and faults only")
        let answer = try #require(index.answers[0])
        #expect(answer.message == "rule m: mocked response 201 (recorded #7), not from the server")
        #expect(answer.attributes == ["rule": "m", "action": "mock", "mocked": "true", "status": "201", "from": "#7"])
        #expect(answer.response?.head.status.code == 201 && answer.response?.body == Data("hi".utf8))
        #expect(answer.response?.head.headerFields[.contentType] == "text/plain")
        #expect(index.answers[1]?.message == "rule f: fault, \(TransportFault.status(503))")
        #expect(index.answers[1]?.attributes["mocked"] == "true" && index.answers[1]?.response == nil)
    }

    @Test func thePrecheckNarrowsByOperationAndMethod() throws {
        func precheck(_ text: String) throws -> RulePrecheck { RulePrecheck(try TraceFilter.parse(text)) }
        let both = try precheck("~op getUser & ~m GET")
        #expect(both.admits(operation: "getUser", method: "GET"))
        #expect(!both.admits(operation: "getUser", method: "POST") && !both.admits(operation: "listOrders", method: "GET"))
        #expect(try precheck("~op a | ~op b").operations == ["a", "b"])
        #expect(try precheck("~op a | ~m GET").operations == nil, "one side allows any operation")
        #expect(try precheck("~op a & ~op b").never)
        #expect(try precheck("~c 5xx").never && precheck("~e | ~rule").never)
        #expect(try precheck("!~c 5xx").operations == nil && !precheck("!~c 5xx").never)
        #expect(try precheck("~op caf\u{E9} | ~op cafe\u{301}").operations?.count == 2, "both spellings kept")
        #expect(!(try precheck("~op caf\u{E9}")).admits(operation: "cafe\u{301}", method: "GET"), "bytes, not canonical")
    }

    @Test func theHostIsSearchedInPlaceAsTheReferenceDoes() throws {
        for authority in Self.authorities {
            let request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/")
            let facts = RequestFacts(request: request, operation: "", body: nil, attempt: 1)
            let host = FilterText.asciiLowercased(RuleSubject.host(of: request))
            for needle in ["", "example", "example.com", "::1", "8080", "h\u{F4}st", "host", "a\r\nb", "[", "1"] {
                #expect(facts.hostContains(Array(needle.utf8)) == FilterText.containsBytes(host, needle), "\(authority ?? "nil") ∋ \(needle)")
            }
        }
    }

    @Test func anIndexHoldsOnlyLiveRulesAndReadsTheAttemptOnlyWhenAsked() throws {
        var state = RuleBookState()
        state.put(try Rule(name: "off", match: "~op a", action: .fault(.timeout), limits: RuleLimits(enabled: false)), origin: .code)
        state.put(try Rule(name: "breaker", match: "", action: .breaker(key: "k", override: .open)), origin: .code)
        state.put(try Rule(name: "never", match: "~c 5xx", action: .fault(.timeout)), origin: .code)
        #expect(RuleIndex(state.entries).count == 0 && RuleIndex(state.entries).live == 1)
        state.put(try Rule(name: "once", match: "~op a & ~att 1", action: .fault(.timeout), limits: RuleLimits(times: 1)), origin: .code)
        let index = RuleIndex(state.entries)
        #expect(index.count == 1 && index.readsAttempt && index.byOperation["a"]?.count == 1 && index.anyOperation.isEmpty)
        _ = state.decide(RuleSubject(request: HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/"),
                                     body: nil, operation: "a", attempt: 1), now: Date(), draw: { 0 })
        #expect(RuleIndex(state.entries).count == 0, "a spent rule leaves the index")
    }

    /// Through the book and a real client: the index is rebuilt on every change and when a rule is spent, so the
    /// outcome is that of deciding each request in full.
    @Test func theBookReindexesOnEveryChange() async throws {
        let harness = RulesTransportTests.Harness([
            try Rule(name: "twice", match: "~op getUser & ~m GET", action: .fault(.status(503)), limits: RuleLimits(times: 2)),
        ])
        for _ in 0..<3 { _ = try? await harness.get() }
        #expect(harness.server.requests.count == 1, "two faults, then the server")
        _ = try? await harness.get(operation: "listOrders")
        #expect(harness.server.requests.count == 2)
        harness.book.put(try Rule(name: "orders", match: "~op listOrders | ~u nothing", action: .mock(RuleMock(status: 204))), origin: .code)
        #expect(try await harness.get(operation: "listOrders").head.status.code == 204)
        harness.book.setEnabled(false, named: "orders", by: .code)
        _ = try? await harness.get(operation: "listOrders")
        #expect(harness.server.requests.count == 3)
        harness.book.put(try Rule(name: "second", match: "~att >1", action: .mock(RuleMock(status: 202))), origin: .code)
        #expect(try await harness.get(operation: "listOrders").head.status.code == 200, "the first attempt is 1")
        #expect(harness.book.entries.map(\.hits) == [2, 1, 0])
    }
}
