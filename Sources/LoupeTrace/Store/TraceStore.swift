import Foundation

/// Where recorded exchanges live: SQLite for real use, memory for tests.
///
/// Methods are synchronous and may block on I/O; the recorder calls `write` from its background writer only,
/// never from the request path. The query, lookup and prune requirements have default implementations that
/// read everything through the basic requirements, so a store of your own need only implement those five;
/// the built-in stores answer them directly (SQLite runs filters in SQL).
public protocol TraceStore: Sendable {
    /// Stores finished exchanges (replacing any with the same id), assigning their sequence numbers.
    func write(_ exchanges: [TraceExchange]) throws
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
    /// Counts, rates, duration percentiles, bytes and breaker transitions of the matching exchanges: one row
    /// for all of them, then one per operation, then one per host (empty when nothing matches).
    func stats(matching filter: TraceFilter?) throws -> [TraceStats]
    /// The exchange stored with this sequence number.
    func exchange(sequence: Int64) throws -> TraceExchange?
    /// Exchanges whose id starts with `idPrefix` (ignoring case), by id, at most `limit`.
    func summaries(idPrefix: String, limit: Int) throws -> [TraceSummary]
    /// Removes the oldest exchanges (with their attempts and events) until the store is within `bounds`; with
    /// `dryRun`, only says what would go.
    func prune(_ bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult
}

extension TraceStore {
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

    public func stats(matching filter: TraceFilter?) throws -> [TraceStats] {
        var accumulator = TraceStatsAccumulator()
        for exchange in try everyExchange() where filter?.matches(exchange) ?? true {
            accumulator.add(exchange)
        }
        return accumulator.result()
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
