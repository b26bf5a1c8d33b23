import Foundation
import HTTPTypes
import Loupe
import LoupeFilter
import LoupeQuery
@testable import LoupeRules
import LoupeTesting
import LoupeTrace
import Testing

/// Which requests a rule sees, and its limits: times, until, enabled, and a seeded probability.
@Suite struct RuleMatchingTests {
    static func subject(_ method: HTTPRequest.Method = .get, _ path: String = "/users/1", operation: String = "getUser",
                        attempt: Int = 1, headers: HTTPFields = [:], body: String? = nil) -> RuleSubject {
        RuleSubject(request: HTTPRequest(method: method, scheme: "http", authority: "api.example.com:8080", path: path, headerFields: headers),
                    body: body.map { Data($0.utf8) }, operation: operation, attempt: attempt)
    }

    @Test func requestTermsMatchAndResponseTermsNever() throws {
        let s = Self.subject(headers: [.authorization: "Bearer x"], body: "{\"sku\":\"A1\"}")
        func m(_ text: String) throws -> Bool { s.matches(try TraceFilter.parse(text)) }
        #expect(try m("~op getUser & ~m GET"))
        #expect(try !m("~op getUser & ~m POST"))
        #expect(try m("~d EXAMPLE.com"))
        #expect(try m("~u /users/\\d+"))
        #expect(try m("~h \"^authorization: bearer\""))
        #expect(try m("~b sku"))
        #expect(try !m("~c 2xx"))
        #expect(try !m("~e"))
        #expect(try m("!~c 2xx"))
        #expect(try m("~att 1") && !m("~att >1"))
        #expect(Self.subject(attempt: 2).matches(try TraceFilter.parse("~att >1")))
        #expect(try m("~op nope | ~m GET"))
    }

    static func book(_ rules: [Rule], random: @escaping @Sendable () -> Double = { 0 }) -> RuleBookState {
        var state = RuleBookState()
        for rule in rules { state.put(rule, origin: .code) }
        return state
    }

    @Test func timesUntilAndEnabledLimitARule() throws {
        let now = Date(timeIntervalSince1970: 1_000)
        var state = Self.book([
            try Rule(name: "twice", match: "~op getUser", action: .fault(.status(503)), limits: RuleLimits(times: 2)),
        ])
        let decisions = (0..<3).map { _ in state.decide(Self.subject(), now: now, draw: { 0 }).terminal }
        #expect(decisions == [.fault(name: "twice", .status(503)), .fault(name: "twice", .status(503)), nil])
        #expect(state.entries[0].hits == 2)

        var expiring = Self.book([try Rule(name: "until", match: "~op getUser", action: .fault(.connectionReset),
                                           limits: RuleLimits(until: now.addingTimeInterval(1)))])
        #expect(expiring.decide(Self.subject(), now: now, draw: { 0 }).terminal != nil)
        #expect(expiring.decide(Self.subject(), now: now.addingTimeInterval(1), draw: { 0 }).terminal == nil)

        var off = Self.book([try Rule(name: "off", match: "~op getUser", action: .fault(.timeout), limits: RuleLimits(enabled: false))])
        #expect(off.decide(Self.subject(), now: now, draw: { 0 }).isEmpty)
        #expect(!off.hasRequestRules)
        _ = off.setEnabled(true, named: "off")
        #expect(off.hasRequestRules)
        #expect(off.decide(Self.subject(), now: now, draw: { 0 }).terminal == .fault(name: "off", .timeout))
    }

    @Test func theFirstMockOrFaultAnswersAndRewritesAllApply() throws {
        var state = Self.book([
            try Rule(name: "a", match: "~m GET", action: .rewrite(RuleRewrite(setHeaders: [TraceHeader(name: "x-a", value: "1")]))),
            try Rule(name: "other", match: "~op other", action: .mock(RuleMock(status: 201))),
            try Rule(name: "mock", match: "~op getUser", action: .mock(RuleMock(status: 200))),
            try Rule(name: "fault", match: "~op getUser", action: .fault(.status(500))),
            try Rule(name: "b", match: "~u users", action: .rewrite(RuleRewrite(removeHeaders: ["x-b"]))),
        ])
        let decision = state.decide(Self.subject(), now: Date(), draw: { 0 })
        #expect(decision.rewrites.map(\.name) == ["a", "b"])
        #expect(decision.terminal == .mock(name: "mock", RuleMock(status: 200)))
        #expect(state.entries.map(\.hits) == [1, 0, 1, 0, 1])
    }

    @Test func aProbabilityDrawsFromTheSeededSourceReproducibly() throws {
        func run(seed: UInt64) throws -> [Bool] {
            let random = SeededRandomSource(seed: seed)
            var state = Self.book([try Rule(name: "30%", match: "~op getUser", action: .fault(.status(503)),
                                            limits: RuleLimits(probability: 0.3))])
            return (0..<1000).map { _ in state.decide(Self.subject(), now: Date(), draw: random.nextUnit).terminal != nil }
        }
        let first = try run(seed: 42)
        #expect(first == (try run(seed: 42)))
        #expect(first != (try run(seed: 43)))
        let fired = first.count { $0 }
        #expect((250...350).contains(fired), "30 % of 1000 fired \(fired) times")
    }

    @Test func aBadFilterIsRefusedWhenTheRuleIsMade() {
        #expect(throws: TraceFilterError.self) { try Rule(name: "x", match: "~op", action: .fault(.timeout)) }
    }

    @Test func theRuleTermFiltersExchangesRulesTouched() throws {
        let filter = try TraceFilter.parse("~rule getuser & ~m GET")
        #expect(filter.description == "~rule getuser & ~m GET")
        #expect(try TraceFilter.parse("~rule").description == "~rule")
        #expect(try TraceFilter.parse("~rule | ~e").description == "~rule | ~e")
        #expect(try TraceFilter.parse("(~rule)").description == "~rule")
        func exchange(_ number: Int) -> TraceExchange {
            TraceExchange(id: UUID(), operation: "getUser", method: "GET", url: "http://a/users/\(number)",
                          startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)),
                          endedAt: Date(timeIntervalSince1970: 1_700_000_001 + Double(number)), outcome: .success, status: 200)
        }
        var touched = exchange(1)
        touched.events = [TraceEvent(kind: .rule, at: Date(), message: "rule getUser down: fault", attributes: ["rule": "getUser down"])]
        let untouched = exchange(2)
        #expect(filter.matches(touched))
        #expect(!filter.matches(untouched))
        #expect(!(try TraceFilter.parse("~rule other")).matches(touched))

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteTraceStore(path: path)
        try store.write([touched, untouched])
        #expect(try store.summaries(matching: filter, limit: 10).map(\.id) == [touched.id], "SQL as in memory")
        #expect(try store.summaries(matching: TraceFilter.parse("~rule"), limit: 10).map(\.id) == [touched.id])
        #expect(try store.summaries(matching: TraceFilter.parse("!~rule"), limit: 10).map(\.id) == [untouched.id])
        let memory = InMemoryTraceStore()
        try memory.write([touched, untouched])
        #expect(try memory.summaries(matching: filter, limit: 10).map(\.id) == [touched.id])
    }
}
