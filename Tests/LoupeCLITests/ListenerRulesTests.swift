import Foundation
import Loupe
import LoupeLink
import LoupeRules
import LoupeTUI
import Synchronization
import Testing
@testable import loupe

/// The rules screen's view of linked apps (issue 44.7): an app's rules are parsed once per change of their text,
/// however often the TUI draws; a state that only changes hit counts parses nothing.
@Suite struct ListenerRulesTests {
    final class Source: Sendable {
        let apps = Mutex<[ListenerRules.Reported]>([])
        let parses = Mutex(0)
    }

    static let identity = ObjectIdentifier(Source.self)

    static func state(_ rules: [Rule], hits: Int) -> LinkRuleState {
        LinkRuleState(rules: RuleFields.json(rules), hits: rules.map { _ in hits }, origins: rules.map { _ in "code" },
                      held: [], maxHold: 60)
    }

    @Test func anAppsRulesAreParsedOncePerChangeAcrossManyDraws() throws {
        let source = Source()
        // A large mock: the 900 KB body, read on every draw before.
        let big = try Rule(name: "big", match: "~op getUser",
                           action: .mock(RuleMock(status: 200, body: Data(String(repeating: "x", count: 200_000).utf8))))
        source.apps.withLock { $0 = [.init(id: Self.identity, name: "demo", state: Self.state([big], hits: 0))] }
        let rules = ListenerRules(reported: { source.apps.withLock { $0 } }, send: { _, _ in true }, parse: { text in
            source.parses.withLock { $0 += 1 }
            return (try? RuleFields.rules(json: text)) ?? []
        })
        for _ in 0..<500 { #expect(rules.apps().first?.entries.count == 1) }
        #expect(source.parses.withLock { $0 } == 1)

        // Hit counts change with every request the mock answers: the same text, no parse.
        for hits in 1...50 {
            source.apps.withLock { $0 = [.init(id: Self.identity, name: "demo", state: Self.state([big], hits: hits))] }
            rules.changed()
            #expect(rules.apps().first?.entries.first?.hits == hits)
        }
        #expect(source.parses.withLock { $0 } == 1)

        // New rules: parsed once more.
        let small = try Rule(name: "small", match: "~op a", action: .fault(.status(503)))
        source.apps.withLock { $0 = [.init(id: Self.identity, name: "demo", state: Self.state([big, small], hits: 0))] }
        rules.changed()
        for _ in 0..<100 { #expect(rules.apps().first?.entries.count == 2) }
        #expect(source.parses.withLock { $0 } == 2)

        // The app leaves: nothing is shown, even though the listener's count did not change.
        source.apps.withLock { $0 = [] }
        #expect(rules.apps().isEmpty)
    }
}
