import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
import PropertyBased
import Testing

/// Keyset pages against the truth: every matching row sorted by SQLite's own `ORDER BY`, on a real SQLite file,
/// an in-memory store and a store answering through the protocol's defaults.
@Suite("Exchanges: keyset pages over the whole store")
struct ExchangePagingTests {
    static let orders = ExchangeSortKey.allCases.flatMap { [ExchangeOrder($0), ExchangeOrder($0, descending: true)] }

    /// The queries of one order: every filter, with and without marks (every third row, rewritten ones included).
    static func queries(_ order: ExchangeOrder, marks: Set<UUID>) -> [ExchangeQuery] {
        ExchangeCorpus.filters.flatMap { filter in
            [ExchangeQuery(filter: filter, order: order), ExchangeQuery(filter: filter, order: order, ids: marks)]
        }
    }

    static func marks(_ corpus: ExchangeCorpus) throws -> Set<UUID> {
        let all = try corpus.sqlite.summaries(after: 0, limit: .max) + corpus.gone
        return Set(all.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.id))
    }

    @Test("precedes agrees with SQLite's ORDER BY on every pair of neighbours, in every order")
    func precedesAgreesWithSQL() throws {
        let corpus = try ExchangeCorpus()
        defer { corpus.remove() }
        for order in Self.orders {
            let rows = try corpus.sqlOrder(ExchangeQuery(order: order))
            #expect(rows.count == 160)
            for (a, b) in zip(rows, rows.dropFirst()) {
                #expect(order.precedes(a, b) && !order.precedes(b, a), "\(order): \(a.sequence) then \(b.sequence)")
            }
        }
    }

    @Test("walking forward from the first page and backward from the last returns every matching row once")
    func walks() throws {
        let corpus = try ExchangeCorpus()
        defer { corpus.remove() }
        let marks = try Self.marks(corpus)
        for order in Self.orders {
            for query in Self.queries(order, marks: marks) {
                let expected = try corpus.sqlOrder(query).map(\.id)
                for (name, store) in corpus.stores {
                    var forward: [TraceSummary] = [], page = try store.exchangePage(query, from: .first, limit: 7)
                    while !page.isEmpty {
                        forward += page
                        page = try store.exchangePage(query, from: .after(page.last!), limit: 7)
                    }
                    var backward: [TraceSummary] = [], back = try store.exchangePage(query, from: .last, limit: 5)
                    while !back.isEmpty {
                        backward = back + backward
                        back = try store.exchangePage(query, from: .before(back.first!), limit: 5)
                    }
                    #expect(forward.map(\.id) == expected, "\(name) forward \(query)")
                    #expect(backward.map(\.id) == expected, "\(name) backward \(query)")
                    #expect(try store.exchangeCount(query) == expected.count, "\(name) count \(query)")
                }
            }
        }
    }

    @Test("pages, ranks and arrivals from any anchor, present or gone, match the sorted truth")
    func anchors() async throws {
        let corpus = try ExchangeCorpus()
        defer { corpus.remove() }
        let marks = try Self.marks(corpus)
        let rows = try corpus.sqlite.summaries(after: 0, limit: .max) + corpus.gone
        let newest = try corpus.sqlite.summaries(after: 0, limit: .max).map(\.sequence).max()
        let orders = Gen.int(in: 0...(Self.orders.count - 1)), filters = Gen.int(in: 0...(ExchangeCorpus.filters.count - 1))
        await propertyCheck(count: 300, input: orders, filters, Gen.bool, Gen.int(in: 0...(rows.count - 1)),
                            Gen.int(in: 0...4), Gen.int(in: 1...12)) { orderIndex, filterIndex, marked, row, kind, limit in
            let order = Self.orders[orderIndex]
            let query = ExchangeQuery(filter: ExchangeCorpus.filters[filterIndex], order: order, ids: marked ? marks : nil)
            let truth = try corpus.sqlOrder(query)
            let anchorRow = rows[row]
            let anchor: ExchangeAnchor = [.first, .last, .after(anchorRow), .before(anchorRow), .at(anchorRow)][kind]
            let expected = Self.page(truth, order: order, anchor: anchor, limit: limit).map(\.id)
            let rank = truth.filter { order.precedes($0, anchorRow) }.count
            // Arrivals after a sequence just before the anchor's (some rows, the anchor among them when it matches).
            let after = anchorRow.sequence - Int64(limit)
            let arrived = truth.filter { $0.sequence > after }
            let arrivals = ExchangeArrivals(count: arrived.count, preceding: arrived.filter { order.precedes($0, anchorRow) }.count,
                                        newest: arrived.max { $0.sequence < $1.sequence })
            for (name, store) in corpus.stores {
                #expect(try store.exchangePage(query, from: anchor, limit: limit).map(\.id) == expected, "\(name) \(anchor)")
                #expect(try store.exchangeRank(query, of: anchorRow) == rank, "\(name) rank")
                #expect(try store.exchangeTotal(query) == ExchangeTotal(count: truth.count, newestSequence: newest), "\(name) total")
                #expect(try store.exchangeArrivals(query, after: after, before: anchorRow) == arrivals, "\(name) arrivals")
                #expect(try store.exchangeArrivals(query, after: after, before: nil).preceding == 0, "\(name) no anchor")
            }
        }
    }

    /// The page `anchor` names in `truth` (sorted), chosen by position, not by ``ExchangePaging``.
    static func page(_ truth: [TraceSummary], order: ExchangeOrder, anchor: ExchangeAnchor, limit: Int) -> [TraceSummary] {
        switch anchor {
        case .first: return Array(truth.prefix(limit))
        case .last: return Array(truth.suffix(limit))
        case .after(let row): return Array(truth.drop { !order.precedes(row, $0) }.prefix(limit))
        case .at(let row): return Array(truth.drop { order.precedes($0, row) }.prefix(limit))
        case .before(let row): return Array(truth.prefix { order.precedes($0, row) }.suffix(limit))
        }
    }

    @Test("a row rewritten in place is placed by its stored values, and .at returns it first while it matches")
    func anchorFollowsTheStoredRow() throws {
        let corpus = try ExchangeCorpus()
        defer { corpus.remove() }
        let query = ExchangeQuery(order: ExchangeOrder(.status))
        let truth = try corpus.sqlOrder(query)
        var stale = truth[40]
        stale.status = (stale.status ?? 0) + 1_000  // as if read before a change: the store's value wins
        for (name, store) in corpus.stores {
            #expect(try store.exchangePage(query, from: .at(stale), limit: 3).map(\.id) == truth[40..<43].map(\.id), "\(name)")
            #expect(try store.exchangeRank(query, of: stale) == 40, "\(name)")
        }
    }

    @Test("no limit, or a negative one, returns nothing; nothing arrives after the newest")
    func emptyLimits() throws {
        let corpus = try ExchangeCorpus(count: 10)
        defer { corpus.remove() }
        for (name, store) in corpus.stores {
            for limit in [0, -1, Int.min] {
                #expect(try store.exchangePage(ExchangeQuery(), from: .first, limit: limit).isEmpty, "\(name)")
                #expect(try store.exchangeArrivals(ExchangeQuery(), after: .max, before: nil) == ExchangeArrivals(count: 0, preceding: 0, newest: nil),
                        "\(name)")
            }
            #expect(try store.exchangePage(ExchangeQuery(), from: .last, limit: Int.max).count == 10, "\(name)")
        }
    }
}
