import Foundation
import GRDB
@testable import LoupeQuery
@_spi(Synthetic) @testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

/// Times the exchanges queries on a synthetic store of 1,000,000 exchanges (``SyntheticStore``), read-only as the
/// TUI opens it. Skipped unless `LOUPE_BIG=1`; the store is made once at `LOUPE_EXCHANGES_STORE` (default
/// `$TMPDIR/loupe-exchanges-1m.sqlite`) and reused. Prints milliseconds per call; asserts only that pages are full
/// and counts agree, since timings depend on the machine.
@Suite("Exchanges on 1,000,000 exchanges", .enabled(if: ProcessInfo.processInfo.environment["LOUPE_BIG"] == "1"))
struct ExchangePagingMillionTests {
    static let count = 1_000_000

    static func milliseconds<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let began = ContinuousClock.now
        let value = try body()
        let took = ContinuousClock.now - began
        return (value, Double(took.components.seconds) * 1_000 + Double(took.components.attoseconds) / 1e15)
    }

    /// The median of `runs` timings of `body`.
    static func median(_ runs: Int = 5, _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs { times.append(try milliseconds(body).1) }
        return times.sorted()[runs / 2]
    }

    @Test("pages, counts and ranks in every order")
    func million() throws {
        let path = ProcessInfo.processInfo.environment["LOUPE_EXCHANGES_STORE"] ?? NSTemporaryDirectory() + "loupe-exchanges-1m.sqlite"
        if !FileManager.default.fileExists(atPath: path) {
            let (_, took) = try Self.milliseconds { try SyntheticStore.create(at: path, count: Self.count) }
            print("generated \(Self.count) exchanges in \(Int(took)) ms at \(path)")
        }
        let (opened, openTook) = try Self.milliseconds { () throws -> (SQLiteTraceStore, [TraceSummary]) in
            let store = try SQLiteTraceStore(path: path, readOnly: true)
            return (store, try store.exchangePage(ExchangeQuery(), from: .first, limit: 200))
        }
        let (store, firstPage) = opened
        #expect(firstPage.count == 200)
        print("open read-only + first page (time): \(String(format: "%.1f", openTook)) ms")
        let (total, countTook) = try Self.milliseconds { try store.exchangeCount(ExchangeQuery()) }
        #expect(total == Self.count)
        print("count (all): \(String(format: "%.1f", countTook)) ms")
        let middle = try #require(try store.summaries(after: 500_000, limit: 1).first)

        print("| order | first | last | after middle | before middle | at middle | rank of middle |")
        print("|---|---|---|---|---|---|---|")
        for key in ExchangeSortKey.allCases {
            for descending in [false, true] {
                let query = ExchangeQuery(order: ExchangeOrder(key, descending: descending))
                var cells: [Double] = []
                for anchor in [ExchangeAnchor.first, .last, .after(middle), .before(middle), .at(middle)] {
                    cells.append(try Self.median {
                        let page = try store.exchangePage(query, from: anchor, limit: 200)
                        #expect(page.count == 200)
                    })
                }
                cells.append(try Self.median { _ = try store.exchangeRank(query, of: middle) })
                let row = cells.map { String(format: "%.1f", $0) }.joined(separator: " | ")
                print("| \(key.rawValue)\(descending ? " desc" : "") | \(row) |")
            }
        }

        print("| filter | order | first page | count |")
        print("|---|---|---|---|")
        for text in ["~m GET", "~c 503", "~c 5xx", "~m PATCH", "~d example.com & ~m POST", "~u op07/12"] {
            let filter = try TraceFilter.parse(text)
            for order in [ExchangeOrder.oldestFirst, ExchangeOrder(.duration, descending: true)] {
                let query = ExchangeQuery(filter: filter, order: order)
                let page = try Self.median(3) { _ = try store.exchangePage(query, from: .first, limit: 200) }
                let count = try Self.median(3) { _ = try store.exchangeCount(query) }
                print("| \(text) | \(order.key.rawValue)\(order.descending ? " desc" : "") | \(String(format: "%.1f", page)) | \(String(format: "%.1f", count)) |")
            }
        }
        let marks = Set(try store.exchangePage(ExchangeQuery(), from: .at(middle), limit: 5_000).map(\.id))
        let marked = ExchangeQuery(order: ExchangeOrder(.size, descending: true), ids: marks)
        let marksPage = try Self.median(3) {
            let page = try store.exchangePage(marked, from: .first, limit: 200)
            #expect(page.count == 200)
        }
        print("5,000 marks, by size desc, first page: \(String(format: "%.1f", marksPage)) ms")
        let arrivals = try Self.median { _ = try store.exchangeArrivals(ExchangeQuery(filter: try TraceFilter.parse("~c 503")),
                                                                       after: Int64(Self.count - 1_000), before: middle) }
        print("arrivals after the last 1,000 (~c 503): \(String(format: "%.1f", arrivals)) ms")
        let marker = try Self.median { _ = try store.changeMarker() }
        print("change marker: \(String(format: "%.2f", marker)) ms")
        try store.close()
    }

    @Test("what the v5 size index costs when writing (200,000 exchanges through write(_:), with and without it)")
    func ingestCost() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var random = SeededGenerator(seed: 5)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let batches = (0..<400).map { batch in
            (0..<500).map { MillionExchangeTests.exchange(batch * 500 + $0, start: start, random: &random) }
        }
        for (name, dropIndex) in [("v5", false), ("v5 without exchange_response_body_size", true)] {
            let store = try SQLiteTraceStore(path: folder.file("\(name).sqlite"), bounds: nil)
            if dropIndex { try store.pool.write { try $0.execute(sql: "DROP INDEX exchange_response_body_size") } }
            let (_, took) = try Self.milliseconds { for batch in batches { try store.write(batch) } }
            print("\(name): 200000 exchanges in \(Int(took)) ms (\(Int(200_000 / took * 1_000))/s)")
            try store.close()
        }
    }
}
