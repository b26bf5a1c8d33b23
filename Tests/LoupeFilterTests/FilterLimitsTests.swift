import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

/// Hostile filters: thousands of terms, deep brackets, runs of `!`. Each is refused with a clear error or runs,
/// in memory and in SQLite, without exhausting any stack and without SQLite refusing the statement.
@Suite("Filter limits")
struct FilterLimitsTests {
    /// The deepest and longest filters the parser accepts, in the shapes that cost SQLite the most.
    static var worstAccepted: [String] {
        let depth = TraceFilterParser.maxDepth
        let leaves = ["~d example", "~cb open", "~b secret", "~h x-id", "~c 500-504", "~dur >1s", "~op op", "~m GET"]
        var filters: [String] = []
        for leaf in leaves {
            // ( … | ( … & ( … ) ) ) alternating and/or, the deepest bracket.
            var alternating = leaf
            for level in 0..<depth { alternating = "\(leaf) \(level.isMultiple(of: 2) ? "|" : "&") (\(alternating))" }
            filters.append(alternating)
            // !( … | !( … ) ): every level a negated group.
            var negated = leaf
            for _ in 0..<(depth / 2) { negated = "!(\(leaf) | \(negated))" }
            filters.append(negated)
            filters.append(String(repeating: "!", count: depth) + leaf)
        }
        let terms = TraceFilterParser.maxTerms
        filters.append((0..<terms).map { "~d host\($0)" }.joined(separator: " | "))
        filters.append((0..<terms).map { "~c \(200 + $0 % 300)" }.joined(separator: " "))
        filters.append((0..<terms).map { $0.isMultiple(of: 2) ? "~op o\($0)" : "~cb open" }.joined(separator: " | "))
        filters.append((0..<terms).map { "~b 'a\($0)+$'" }.joined(separator: " | "))
        // Brackets as deep as allowed, each level with its share of the terms.
        let perLevel = terms / (depth / 2)
        var mixed = "~e"
        for level in 0..<(depth / 2) {
            let chain = (0..<(perLevel - 1)).map { "~d h\(level)x\($0)" }.joined(separator: level.isMultiple(of: 2) ? " | " : " & ")
            mixed = "\(chain) \(level.isMultiple(of: 2) ? "&" : "|") !(\(mixed))"
        }
        filters.append(mixed)
        return filters
    }

    @Test("the worst filters the parser accepts run in memory and in SQLite")
    func worstAcceptedFiltersRun() throws {
        let fixture = try FilterCorpusStore(count: 40, seed: 3)
        for text in Self.worstAccepted {
            let filter = try TraceFilter.parse(text)
            let expected = fixture.expected(filter)
            #expect(try fixture.store.summaries(matching: filter, limit: 1000).map(\.id) == expected, "\(text.prefix(80))")
            #expect(try fixture.store.exchanges(matching: filter, limit: 3).map(\.id) == Array(expected.suffix(3)))
            _ = try storeStats(fixture.store, matching: filter)
            #expect(try TraceFilter.parse(filter.description) == filter)
        }
    }

    @Test("thousands of terms are refused with the limit and the position")
    func tooManyTerms() {
        let text = Array(repeating: "~e", count: 3000).joined(separator: " ")
        let error = #expect(throws: TraceFilterError.self) { try TraceFilter.parse(text) }
        #expect(error?.description.contains("more than \(TraceFilterParser.maxTerms) terms") == true, "\(String(describing: error))")
        // The error points at the first term over the limit.
        #expect(error?.position == TraceFilterParser.maxTerms * 3 + 1)
    }

    @Test("deep brackets and long runs of ! are refused with the limit and the position")
    func tooDeep() {
        let depth = TraceFilterParser.maxDepth
        let brackets = #expect(throws: TraceFilterError.self) {
            try TraceFilter.parse(String(repeating: "(", count: 100_000) + "~e" + String(repeating: ")", count: 100_000))
        }
        #expect(brackets?.position == TraceFilterParser.maxLength + 1)
        let deep = #expect(throws: TraceFilterError.self) {
            try TraceFilter.parse(String(repeating: "(", count: depth + 1) + "~e" + String(repeating: ")", count: depth + 1))
        }
        #expect(deep?.position == depth + 1)
        #expect(deep?.description.contains("nested more than \(depth) levels") == true)
        let bangs = #expect(throws: TraceFilterError.self) { try TraceFilter.parse(String(repeating: "!", count: 5000) + "~e") }
        #expect(bangs?.position == depth + 1)
        #expect(throws: Never.self) { try TraceFilter.parse(String(repeating: "!", count: depth) + "~e") }
    }

    @Test("a filter longer than the limit is refused before it is read")
    func tooLong() {
        let error = #expect(throws: TraceFilterError.self) {
            try TraceFilter.parse("~b " + String(repeating: "a", count: TraceFilterParser.maxLength))
        }
        #expect(error?.position == TraceFilterParser.maxLength + 1)
        #expect(error?.description.contains("longer than \(TraceFilterParser.maxLength) characters") == true)
    }

    @Test("a filter built in code that SQLite refuses is a filter error, not a store error")
    func sqliteRefusalIsAFilterError() throws {
        let fixture = try FilterCorpusStore(count: 10, seed: 5)
        // Alternating & and | a thousand levels deep: no text parses to this, but code can build it.
        var filter = TraceFilter.error
        for level in 0..<1200 {
            filter = level.isMultiple(of: 2) ? .or(.method("GET"), filter) : .and(.replay, filter)
        }
        let error = #expect(throws: TraceFilterError.self) { try fixture.store.summaries(matching: filter, limit: 5) }
        #expect(error?.description.contains("too complex") == true, "\(String(describing: error))")
        #expect(throws: TraceFilterError.self) { try storeStats(fixture.store, matching: filter) }
        #expect(throws: TraceFilterError.self) { try fixture.store.exchanges(matching: filter, limit: 5) }
    }

    @Test("parsing, printing, matching and SQL for the worst filters fit in a small thread stack")
    func smallStack() async throws {
        let texts = Self.worstAccepted
        let exchange = TraceMatchingFixtures.exchange
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                for text in texts {
                    guard let filter = try? TraceFilter.parse(text) else { continuation.resume(returning: false); return }
                    _ = filter.matches(exchange)
                    _ = filter.matches(exchange.summary)
                    _ = filter.description
                    _ = filter.needsContent
                    _ = SQLFilter(filter).sql
                    _ = filter == filter
                }
                continuation.resume(returning: true)
            }
            // Darwin's default for threads other than the main one; Linux's is larger.
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(finished)
    }
}
