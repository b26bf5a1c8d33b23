import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
@testable import LoupeTestSupport

/// The same exchanges in a real SQLite file, an ``InMemoryTraceStore`` and a store with only the five basic
/// requirements (so the protocol's default exchanges implementations run), with every awkward case for paging:
/// many ties on every key, absent durations, statuses and sizes, strings that Swift calls equal but SQLite does
/// not (`é` composed and decomposed), upper case before lower case, URLs that do not parse, and rows rewritten
/// since (their old summaries are anchors of rows that are gone).
struct ExchangeCorpus {
    static let urls = [
        "https://a.test/x", "https://Z.test/y", "https://%C3%A9.test/", "https://e%CC%81.test/", "https://a.test:8080/q?x=1",
        "not a url", "https://b.test/",
    ]
    static let operations = ["getUser", "GetUser", "café", "cafe\u{301}", "Z", "", "a"]
    static let starts: [Double] = [1_700_000_000.1, 1_700_000_000.7, 1_700_000_003.3, 1_699_999_999.9]
    static let durations: [Double?] = [nil, 0.25, 0.5, 2]
    static let statuses: [Int?] = [nil, 200, 200, 404, 503]
    static let sizes: [Int?] = [nil, 0, 10, 4096]
    /// Filters whose SQL takes every path: indexed terms, negation over absent values, the regex function.
    static let filters: [TraceFilter?] = [nil] + ["~c 503", "~m GET", "!~c 200", "~u a\\.test", "~dur >300ms", "~e | ~d z"]
        .map { try? TraceFilter.parse($0) }

    let folder: TemporaryFolder
    let sqlite: SQLiteTraceStore
    let memory = InMemoryTraceStore()
    let basic = BasicStore()
    /// Summaries of rows since rewritten: their sequences are no longer stored.
    let gone: [TraceSummary]

    var stores: [(name: String, store: any TraceStore)] { [("sqlite", sqlite), ("memory", memory), ("basic", basic)] }

    init(count: Int = 160, seed: UInt64 = 7) throws {
        folder = try TemporaryFolder()
        sqlite = try SQLiteTraceStore(path: folder.file("flows.sqlite"), bounds: nil)
        var random = SeededGenerator(seed: seed)
        let exchanges = (0..<count).map { _ in Self.exchange(using: &random) }
        for store in [sqlite, memory, basic] as [any TraceStore] {
            try store.write(Array(exchanges.prefix(count / 2)))
            try store.write(Array(exchanges.dropFirst(count / 2)))
        }
        // Rewrite every 9th exchange: a new sequence (a gap where it was) and a new status.
        let before = try sqlite.summaries(after: 0, limit: .max)
        let rewritten = stride(from: 0, to: count, by: 9).map { index in
            var exchange = exchanges[index]
            exchange.status = exchange.status == nil ? 503 : nil
            return exchange
        }
        for store in [sqlite, memory, basic] as [any TraceStore] { try store.write(rewritten) }
        let rewrittenIDs = Set(rewritten.map(\.id))
        gone = before.filter { rewrittenIDs.contains($0.id) }
    }

    static func exchange(using random: inout SeededGenerator) -> TraceExchange {
        let start = Date(timeIntervalSince1970: starts.randomElement(using: &random)!)
        let duration = durations.randomElement(using: &random)!
        let status = statuses.randomElement(using: &random)!
        let size = sizes.randomElement(using: &random)!
        return TraceExchange(
            id: UUID(), operation: operations.randomElement(using: &random)!,
            method: ["GET", "POST", "get"].randomElement(using: &random)!, url: urls.randomElement(using: &random)!,
            startedAt: start, endedAt: duration.map { start.addingTimeInterval($0) },
            outcome: status == nil ? .transportError : status! >= 400 ? .httpError : .success, status: status,
            responseBody: size.map { TraceBody(data: Data(repeating: 65, count: min($0, 8)), size: $0, isTruncated: $0 > 8) })
    }

    func remove() {
        try? sqlite.close()
        folder.remove()
    }

    /// Every stored row matching `query`, in the order SQLite's own `ORDER BY key, sequence` gives: the truth
    /// that pages and ``ExchangeOrder/precedes(_:_:)`` are held to.
    func sqlOrder(_ query: ExchangeQuery) throws -> [TraceSummary] {
        let filter = SQLFilter(query.filter)
        let direction = query.order.descending ? "DESC" : "ASC"
        let sql = """
            SELECT \(RowReader.summaryColumns) FROM exchange WHERE \(filter.sql)
            ORDER BY \(query.order.key.column) \(direction), sequence \(direction)
            """
        let rows = try sqlite.pool.read { db in
            try filter.withFunction(in: db) { try Row.fetchAll(db, sql: sql, arguments: filter.arguments).map(RowReader.summary) }
        }
        guard let ids = query.ids else { return rows }
        return rows.filter { ids.contains($0.id) }
    }
}

/// A store with only the five basic requirements, over an in-memory one: the exchanges defaults answer for it.
final class BasicStore: TraceStore {
    let inner = InMemoryTraceStore()
    func write(_ exchanges: [TraceExchange]) throws { try inner.write(exchanges) }
    func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
    func count() throws -> Int { try inner.count() }
}
