import Foundation
import GRDB
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

@Suite("Filters in SQL agree with filters in memory")
struct SQLFilterTests {
    @Test("every atom, and 300 random combinations, select the same exchanges from SQLite and from memory")
    func differential() throws {
        let fixture = try FilterCorpusStore()
        var random = SeededGenerator(seed: 7)
        let texts = TraceCorpus.atoms + (0..<300).map { _ in TraceCorpus.filterText(depth: 4, using: &random) }
        var nonTrivial = 0
        for text in texts {
            let filter = try TraceFilter.parse(text)
            let expected = fixture.expected(filter)
            if !expected.isEmpty && expected.count < fixture.corpus.count { nonTrivial += 1 }
            #expect(try fixture.store.summaries(matching: filter, limit: 10_000).map(\.id) == expected, "\(text)")
            #expect(try fixture.store.summaries(matching: filter, limit: 7).map(\.id) == fixture.expected(filter, limit: 7), "\(text)")
            #expect(try fixture.memory.summaries(matching: filter, limit: 7).map(\.id) == fixture.expected(filter, limit: 7), "\(text)")
            // A summary decides a row only when it can decide it correctly.
            for exchange in fixture.corpus.prefix(60) {
                if let decided = filter.matches(exchange.summary) {
                    #expect(decided == filter.matches(exchange), "\(text) on \(exchange.id)")
                }
            }
        }
        // The corpus really exercises the filters: most of them select some but not all exchanges.
        #expect(nonTrivial > texts.count / 2)
        // Every atom selects something.
        for atom in TraceCorpus.atoms {
            #expect(!fixture.expected(try TraceFilter.parse(atom)).isEmpty, "\(atom)")
        }
    }

    @Test("stats agree between SQLite, memory and the protocol's default implementation (their exchanges, one aggregator)")
    func statsAgree() throws {
        let fixture = try FilterCorpusStore(count: 300, seed: 9)
        let gated = GatedStore()
        gated.open()
        try gated.write(fixture.corpus)
        for text in [nil, "~e", "~c 5xx | ~b secret", "~m GET & !~att 0", "~op nothing-matches"] {
            let filter = try TraceFilter.parseIfPresent(text)
            let fromSQL = try storeStats(fixture.store, matching: filter)
            #expect(fromSQL == (try storeStats(fixture.memory, matching: filter)), "\(text ?? "nil")")
            #expect(fromSQL == (try storeStats(gated, matching: filter)), "\(text ?? "nil")")
        }
        #expect(try storeStats(fixture.store, matching: TraceFilter.parse("~op nothing-matches")).isEmpty)
    }

    @Test("full exchanges come back filtered, newest last, with attempts and events")
    func exchanges() throws {
        let fixture = try FilterCorpusStore(count: 200, seed: 3)
        let filter = try TraceFilter.parse("~att >1 & ~b secret")
        let found = try fixture.store.exchanges(matching: filter, limit: 5)
        #expect(found.map(\.id) == fixture.expected(filter, limit: 5))
        let byID = Dictionary(uniqueKeysWithValues: fixture.corpus.map { ($0.id, $0) })
        for exchange in found {
            #expect(exchange.attempts == byID[exchange.id]?.attempts)
            #expect(exchange.events == byID[exchange.id]?.events)
            #expect(exchange.responseBody == byID[exchange.id]?.responseBody)
        }
        #expect(try fixture.memory.exchanges(matching: filter, limit: 5).map(\.id) == found.map(\.id))
    }

    @Test("indexed terms use indexes; and need no sort for ORDER BY sequence")
    func plans() throws {
        let fixture = try FilterCorpusStore(count: 50)
        let cases = [
            "~c 503": "exchange_status", "~m POST": "exchange_method", "~op listUsers": "exchange_operation",
            "~replay": "exchange_replays", "~e": "exchange_errors", "~d example.com ~m POST": "exchange_method",
            "~att >1": "exchange_retried", "~att >=3": "exchange_retried", "~att 2": "exchange_retried",
            "~cb open": "attempt_circuit", "~cb half-open": "attempt_circuit", "~cb disabled": "attempt_circuit",
        ]
        for (text, index) in cases {
            let condition = SQLFilter(try TraceFilter.parse(text))
            let details = try fixture.store.pool.read { db in
                try condition.withFunction(in: db) {
                    try Row.fetchAll(db, sql: """
                        EXPLAIN QUERY PLAN SELECT sequence FROM exchange WHERE \(condition.sql) ORDER BY sequence DESC LIMIT 50
                        """, arguments: condition.arguments).map { $0["detail"] as String }
                }
            }.joined(separator: "\n")
            #expect(details.contains(index), "\(text): \(details)")
            #expect(!details.contains("USE TEMP B-TREE FOR ORDER BY"), "\(text): \(details)")
        }
    }
}
