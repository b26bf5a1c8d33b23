import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeRules
import LoupeServe
import LoupeTrace
import Testing

/// Rules act on served answers as they act on an app's: a fault turns the recorded 200 into a 503.
@Suite struct ServeRulesTests {
    @Test func aFaultRuleTurnsAServedAnswerIntoA503AndOnlyWhereItMatches() async throws {
        let book = RuleBook(RuleSet([try Rule(name: "outage", match: "~u /status", action: .fault(.status(503)))]))
        let store = InMemoryTraceStore()
        try store.write([
            Recordings.exchange("GET", "/status", status: 200, body: #"{"state":"up"}"#),
            Recordings.exchange("GET", "/items", status: 200, body: "[]"),
        ])
        try await ServeServerTests.withServer(ServeOptions(rules: ServeRules(book: book)), store: store) { client, base, lines in
            let status = try await ServeServerTests.get(client, base, "/status")
            let items = try await ServeServerTests.get(client, base, "/items")
            #expect(status.head.status.code == 503)
            #expect(items.head.status.code == 200)
            #expect(lines.all == ["GET /status → 503 #1 (a rule changed it)", "GET /items → 200 #2"])
        }
    }

    @Test func aMockRuleAnswersAMiss() async throws {
        let mock = RuleMock(status: 418, body: Data("teapot".utf8))
        let book = RuleBook(RuleSet([try Rule(name: "tea", match: "~u /tea", action: .mock(mock))]))
        try await ServeServerTests.withServer(ServeOptions(rules: ServeRules(book: book))) { client, base, _ in
            let response = try await ServeServerTests.get(client, base, "/tea")
            #expect(response.head.status.code == 418)
            #expect(response.body == Data("teapot".utf8))
        }
    }
}
