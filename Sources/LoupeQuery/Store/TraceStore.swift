import Foundation
import LoupeTrace

/// A store viewers read: what the CLI, the TUI, exports and replays ask of recorded exchanges.
///
/// Methods are synchronous and may block on I/O. Writing is ``TraceStoreWriting``'s one requirement, all the
/// recorder needs; this protocol adds the reads. The query, lookup and prune requirements have default
/// implementations that read everything through the basic requirements, so a store of your own need only
/// implement `write` and the four basic reads; the built-in stores answer them directly (SQLite runs filters in
/// SQL).
///
/// The exchanges requirements (``exchangePage(_:from:limit:)`` and its companions) make the TUI's list a window
/// over the whole store: pages are found by keyset (the sort key and sequence of a row, see ``ExchangeAnchor``), never
/// by offset, so no call reads more than the page it returns when the store can serve the order from an index.
public protocol TraceStore: TraceStoreWriting {
    /// The newest `limit` exchanges, oldest first.
    func recent(limit: Int) throws -> [TraceSummary]
    /// Exchanges stored after `sequence`, oldest first: how live views poll for news.
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary]
    /// One exchange with its attempts, events, headers and bodies.
    func exchange(id: UUID) throws -> TraceExchange?
    /// How many exchanges are stored.
    func count() throws -> Int

    /// The newest `limit` exchanges that match `filter` (all, when `nil`), oldest first.
    func summaries(matching filter: TraceFilter?, limit: Int) throws -> [TraceSummary]
    /// Like ``summaries(matching:limit:)``, with headers, bodies, attempts and events.
    func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange]
    /// The exchange stored with this sequence number.
    func exchange(sequence: Int64) throws -> TraceExchange?
    /// Exchanges whose id starts with `idPrefix` (ignoring case), by id, at most `limit`.
    func summaries(idPrefix: String, limit: Int) throws -> [TraceSummary]
    /// Removes the oldest exchanges (with their attempts and events) until the store is within `bounds`; with
    /// `dryRun`, only says what would go.
    func prune(_ bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult

    // MARK: The exchanges list

    /// At most `limit` rows of `query` from `anchor`, always in display order (for ``ExchangeAnchor/before(_:)`` and
    /// ``ExchangeAnchor/last`` too). Walking `.after(page.last)` from `.first` (or `.before(page.first)` from `.last`)
    /// returns every matching row exactly once.
    func exchangePage(_ query: ExchangeQuery, from anchor: ExchangeAnchor, limit: Int) throws -> [TraceSummary]
    /// How many rows match `query`.
    func exchangeCount(_ query: ExchangeQuery) throws -> Int
    /// ``exchangeCount(_:)`` with the newest sequence it saw, both from one look at the store.
    func exchangeTotal(_ query: ExchangeQuery) throws -> ExchangeTotal
    /// How many matching rows come strictly before `summary` in the query's order: its index, when it matches.
    func exchangeRank(_ query: ExchangeQuery, of summary: TraceSummary) throws -> Int
    /// The matching rows stored after `sequence`, tallied: how many, how many come before `anchor` in the query's
    /// order (as ``exchangeRank(_:of:)`` places rows), and the newest. How a live list learns of arrivals, at the cost
    /// of counting them rather than reading them.
    func exchangeArrivals(_ query: ExchangeQuery, after sequence: Int64, before anchor: TraceSummary?) throws -> ExchangeArrivals
    /// A token that changes when the store does (see ``StoreChangeMarker``).
    func changeMarker() throws -> StoreChangeMarker
    /// At most `limit` exchanges stored after `sequence`, oldest first, with attempts and events but without
    /// headers and bodies (body sizes kept), a stream's messages without payloads: what the circuits and metrics
    /// aggregators read as a store grows.
    func activity(after sequence: Int64, limit: Int) throws -> [TraceExchange]
    /// The exchanges stored with these sequences (those still there), by sequence, as ``activity(after:limit:)``
    /// reads them: what the timeline draws for the rows in view.
    func activity(sequences: [Int64]) throws -> [TraceExchange]
}

extension TraceStore {
    public func activity(after sequence: Int64, limit: Int) throws -> [TraceExchange] {
        try summaries(after: sequence, limit: limit).compactMap { try exchange(id: $0.id) }
    }

    public func activity(sequences: [Int64]) throws -> [TraceExchange] {
        try Set(sequences).sorted().compactMap { try exchange(sequence: $0) }
    }

    /// Every exchange, oldest first, read one by one: the fallback behind the default implementations.
    private func everyExchange() throws -> [TraceExchange] {
        try summaries(after: Int64.min, limit: Int.max).compactMap { try exchange(id: $0.id) }
    }

    public func summaries(matching filter: TraceFilter?, limit: Int) throws -> [TraceSummary] {
        guard let filter else { return try recent(limit: limit) }
        return try exchanges(matching: filter, limit: limit).map(\.summary)
    }

    public func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange] {
        let matching = try everyExchange().filter { filter?.matches($0) ?? true }
        return Array(matching.suffix(max(0, limit)))
    }

    public func exchange(sequence: Int64) throws -> TraceExchange? {
        guard sequence > Int64.min else { return nil }
        return try summaries(after: sequence - 1, limit: 1).first { $0.sequence == sequence }.flatMap { try exchange(id: $0.id) }
    }

    public func summaries(idPrefix: String, limit: Int) throws -> [TraceSummary] {
        let prefix = idPrefix.uppercased()
        let matching = try summaries(after: Int64.min, limit: Int.max).filter { $0.id.uuidString.hasPrefix(prefix) }
        return Array(matching.sorted { $0.id.uuidString < $1.id.uuidString }.prefix(max(0, limit)))
    }

    /// Stores that cannot delete throw.
    public func prune(_ bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult {
        throw TraceStoreError(code: .database, path: String(describing: Self.self), message: "this store cannot prune")
    }

    /// Removes the oldest exchanges until the store is within `bounds`.
    @discardableResult
    public func prune(_ bounds: TraceStoreBounds, now: Date = Date()) throws -> PruneResult {
        try prune(bounds, now: now, dryRun: false)
    }
}

// The exchanges list, read through the basic requirements: every matching row, then ordered in memory.
extension TraceStore {
    public func exchangePage(_ query: ExchangeQuery, from anchor: ExchangeAnchor, limit: Int) throws -> [TraceSummary] {
        guard limit > 0 else { return [] }
        return ExchangePaging.page(try exchangeRows(query), order: query.order, from: try anchor.replacingSummary(storedRow),
                               limit: limit)
    }

    public func exchangeCount(_ query: ExchangeQuery) throws -> Int {
        try exchangeRows(query).count
    }

    /// Counts the rows up to the newest sequence found first, so the two agree however the store changes meanwhile.
    public func exchangeTotal(_ query: ExchangeQuery) throws -> ExchangeTotal {
        guard let newest = try changeMarker().maxSequence else { return ExchangeTotal(count: 0, newestSequence: nil) }
        var upToNewest = query
        upToNewest.throughSequence = min(query.throughSequence ?? newest, newest)
        return ExchangeTotal(count: try exchangeCount(upToNewest), newestSequence: newest)
    }

    public func exchangeRank(_ query: ExchangeQuery, of summary: TraceSummary) throws -> Int {
        ExchangePaging.rank(try exchangeRows(query), order: query.order, of: try storedRow(summary))
    }

    public func exchangeArrivals(_ query: ExchangeQuery, after sequence: Int64, before anchor: TraceSummary?) throws -> ExchangeArrivals {
        let anchor = try anchor.map(storedRow)
        return ExchangeArrivals(try exchangeRows(query).lazy.filter { $0.sequence > sequence }, order: query.order, anchor: anchor)
    }

    /// The newest and oldest sequences, and the count as the version: rows rewritten in place by a store of your
    /// own go unnoticed unless it implements this.
    public func changeMarker() throws -> StoreChangeMarker {
        StoreChangeMarker(
            maxSequence: try recent(limit: 1).first?.sequence,
            minSequence: try summaries(after: Int64.min, limit: 1).first?.sequence, version: Int64(try count()))
    }

    /// The rows of `query`, in no particular order.
    private func exchangeRows(_ query: ExchangeQuery) throws -> [TraceSummary] {
        let rows = query.filter == nil
            ? try summaries(after: Int64.min, limit: Int.max)
            : try exchanges(matching: query.filter, limit: Int.max).map(\.summary)
        return rows.filter { row in
            (query.ids?.contains(row.id) ?? true) && query.throughSequence.map { row.sequence <= $0 } ?? true
        }
    }

    /// The row stored with `summary`'s sequence, or `summary` itself when that row is gone.
    private func storedRow(_ summary: TraceSummary) throws -> TraceSummary {
        guard summary.sequence > Int64.min else { return summary }
        return try summaries(after: summary.sequence - 1, limit: 1).first { $0.sequence == summary.sequence } ?? summary
    }
}
