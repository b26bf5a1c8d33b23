import DequeModule
import Foundation
import LoupeTrace
import Synchronization

/// Keeps exchanges in memory: for tests and for apps that only want a live view.
///
/// Filters run through ``TraceFilter/matches(_:)``. With `bounds`, the store prunes itself after every write
/// (cheap: it keeps running totals), so a long-lived live view stays bounded.
public final class InMemoryTraceStore: TraceStore {
    private struct Entry {
        var exchange: TraceExchange
        /// Made once on write: a summary parses the URL, and the exchanges list compares every row's.
        var summary: TraceSummary
        var storedAt: Date
        var bytes: Int
    }

    /// An exchange's id as the index's key, hashed as two words: `UUID` hashes its 16 bytes through
    /// `Hasher.combine(bytes:)`, and a bounded store hashes ids three times an exchange (looked up, inserted, and
    /// removed when pruned, with its neighbours rehashed).
    private struct IDKey: Hashable {
        let id: UUID

        init(_ id: UUID) { self.id = id }

        func hash(into hasher: inout Hasher) {
            let words = id.words
            hasher.combine(words.0)
            hasher.combine(words.1)
        }
    }

    private struct State {
        /// Oldest first, so sequences ascend and a binary search finds one. A deque: a bounded store drops its
        /// oldest entries on nearly every write, and an array shifted every entry left each time.
        var entries: Deque<Entry> = []
        /// Each stored exchange's sequence: writes replace by id, and a scan per write made a long live view
        /// quadratic. Pruned ids stay until ``forgetPruned()``: a look-up checks the sequence it
        /// finds against the entries, and sequences are never reused, so a pruned id is found nowhere.
        var sequences: [IDKey: Int64] = [:]
        var nextSequence: Int64 = 1
        var totalBytes = 0
        /// Counts writes and prunes: the ``StoreChangeMarker/version``.
        var version: Int64 = 0

        /// Drops the pruned ids from the index once they are as many as the entries (and a few more): removing each
        /// as it was pruned rehashed its neighbours, on every exchange of a bounded store; rebuilt
        /// now and then, the index costs one insertion an exchange, and stays within twice the entries.
        mutating func forgetPruned() {
            guard sequences.count > 2 * entries.count + 64 else { return }
            sequences.removeAll(keepingCapacity: true)
            for index in entries.indices {
                sequences[IDKey(entries[index].exchange.id)] = entries[index].exchange.sequence
            }
        }

        func index(of id: UUID) -> Int? {
            sequences[IDKey(id)].flatMap(index(ofSequence:))
        }

        func index(ofSequence sequence: Int64) -> Int? {
            let index = firstIndex(atOrAfter: sequence)
            return index < entries.count && entries[index].exchange.sequence == sequence ? index : nil
        }

        /// The first entry whose sequence is `sequence` or later (binary search).
        func firstIndex(atOrAfter sequence: Int64) -> Int {
            var (low, high) = (0, entries.count)
            while low < high {
                let middle = (low + high) / 2
                if (entries[middle].exchange.sequence ?? 0) < sequence { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    private let state = Mutex(State())
    private let bounds: TraceStoreBounds?
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - bounds: what to keep; `nil` (the default) keeps everything.
    ///   - now: the clock that stamps writes and ages exchanges.
    public init(bounds: TraceStoreBounds? = nil, now: @escaping @Sendable () -> Date = Date.init) {
        self.bounds = bounds
        self.now = now
    }

    public func write(_ exchanges: [TraceExchange]) throws {
        let storedAt = now()
        state.withLock { state in
            for var exchange in exchanges {
                if let index = state.index(of: exchange.id) {
                    state.totalBytes -= state.entries.remove(at: index).bytes
                }
                exchange.sequence = state.nextSequence
                state.sequences[IDKey(exchange.id)] = state.nextSequence
                state.nextSequence += 1
                // The summary and size first, so the exchange is moved into its entry, not copied (its references
                // retained) and the loop's copy destroyed after.
                let summary = exchange.summary, bytes = exchange.storedByteCount
                state.totalBytes += bytes
                state.entries.append(Entry(exchange: consume exchange, summary: summary, storedAt: storedAt, bytes: bytes))
            }
            state.version += 1
            if let bounds, Self.exceeds(state, bounds, now: storedAt) {
                _ = Self.prune(&state, bounds: bounds, now: storedAt, dryRun: false)
            }
        }
    }

    public func recent(limit: Int) throws -> [TraceSummary] {
        state.withLock { Array($0.entries.suffix(max(0, limit)).map(\.summary)) }
    }

    public func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        state.withLock { state in
            let start = sequence < .max ? state.firstIndex(atOrAfter: sequence + 1) : state.entries.count
            return Array(state.entries[start...].prefix(max(0, limit)).map(\.summary))
        }
    }

    public func exchange(id: UUID) throws -> TraceExchange? {
        state.withLock { state in state.index(of: id).map { state.entries[$0].exchange } }
    }

    public func count() throws -> Int {
        state.withLock { $0.entries.count }
    }

    /// Every stored exchange, oldest first.
    public var all: [TraceExchange] { state.withLock { $0.entries.map(\.exchange) } }

    // MARK: Queries

    public func summaries(matching filter: TraceFilter?, limit: Int) throws -> [TraceSummary] {
        try exchanges(matching: filter, limit: limit).map(\.summary)
    }

    public func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange] {
        let all = self.all
        guard let filter else { return Array(all.suffix(max(0, limit))) }
        var found: [TraceExchange] = []
        for exchange in all.reversed() where found.count < limit && filter.matches(exchange) {
            found.append(exchange)
        }
        return found.reversed()
    }

    public func exchange(sequence: Int64) throws -> TraceExchange? {
        state.withLock { state in state.index(ofSequence: sequence).map { state.entries[$0].exchange } }
    }

    // MARK: The exchanges list

    public func exchangePage(_ query: ExchangeQuery, from anchor: ExchangeAnchor, limit: Int) throws -> [TraceSummary] {
        guard limit > 0 else { return [] }
        let (rows, anchor) = state.withLock { state in
            (Self.rows(state, query), anchor.replacingSummary { Self.stored($0, in: state) })
        }
        return ExchangePaging.page(rows, order: query.order, from: anchor, limit: limit)
    }

    public func exchangeCount(_ query: ExchangeQuery) throws -> Int {
        state.withLock { Self.rows($0, query).count }
    }

    public func exchangeTotal(_ query: ExchangeQuery) throws -> ExchangeTotal {
        state.withLock { ExchangeTotal(count: Self.rows($0, query).count, newestSequence: $0.entries.last?.exchange.sequence) }
    }

    public func exchangeRank(_ query: ExchangeQuery, of summary: TraceSummary) throws -> Int {
        let (rows, summary) = state.withLock { (Self.rows($0, query), Self.stored(summary, in: $0)) }
        return ExchangePaging.rank(rows, order: query.order, of: summary)
    }

    public func exchangeArrivals(_ query: ExchangeQuery, after sequence: Int64, before anchor: TraceSummary?) throws -> ExchangeArrivals {
        state.withLock { state in
            let start = sequence < .max ? state.firstIndex(atOrAfter: sequence + 1) : state.entries.count
            let rows = state.entries[start...].lazy.filter { query.includes($0.exchange) }.map(\.summary)
            return ExchangeArrivals(rows, order: query.order, anchor: anchor.map { Self.stored($0, in: state) })
        }
    }

    public func changeMarker() throws -> StoreChangeMarker {
        state.withLock { state in
            StoreChangeMarker(maxSequence: state.entries.last?.exchange.sequence,
                              minSequence: state.entries.first?.exchange.sequence, version: state.version)
        }
    }

    /// The summaries of the rows `query` includes, oldest first.
    private static func rows(_ state: State, _ query: ExchangeQuery) -> [TraceSummary] {
        guard query.filter != nil || query.ids != nil || query.throughSequence != nil else { return state.entries.map(\.summary) }
        return state.entries.filter { query.includes($0.exchange) }.map(\.summary)
    }

    /// The summary stored with `summary`'s sequence, or `summary` when that row is gone.
    private static func stored(_ summary: TraceSummary, in state: State) -> TraceSummary {
        state.index(ofSequence: summary.sequence).map { state.entries[$0].summary } ?? summary
    }

    // MARK: Bounds

    public func prune(_ bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult {
        state.withLock { Self.prune(&$0, bounds: bounds, now: now, dryRun: dryRun) }
    }

    /// Whether any bound is exceeded, from the running totals and the oldest entry.
    private static func exceeds(_ state: State, _ bounds: TraceStoreBounds, now: Date) -> Bool {
        if let maxCount = bounds.maxCount, state.entries.count > maxCount { return true }
        if let maxBytes = bounds.maxBytes, state.totalBytes > maxBytes { return true }
        if let maxAge = bounds.maxAge, let oldest = state.entries.first {
            return oldest.storedAt.timeIntervalSince1970 < now.timeIntervalSince1970 - maxAge
        }
        return false
    }

    private static func prune(_ state: inout State, bounds: TraceStoreBounds, now: Date, dryRun: Bool) -> PruneResult {
        let items = state.entries.map { PrunePlanner.Item(storedAt: $0.storedAt, bytes: $0.bytes) }
        let (cut, reasons) = PrunePlanner.plan(items, bounds: bounds, now: now)
        let removedBytes = items[..<cut].reduce(0) { $0 + $1.bytes }
        let result = PruneResult(
            removedCount: cut, removedBytes: removedBytes, remainingCount: items.count - cut,
            remainingBytes: state.totalBytes - removedBytes, reasons: reasons, isDryRun: dryRun)
        if !dryRun {
            state.entries.removeFirst(cut)
            state.forgetPruned()
            state.totalBytes -= removedBytes
            state.version += 1
        }
        return result
    }
}
