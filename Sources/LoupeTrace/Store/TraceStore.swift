import Foundation

/// Where recorded exchanges live: SQLite for real use, memory for tests.
///
/// Methods are synchronous and may block on I/O; the recorder calls `write` from its background writer only,
/// never from the request path.
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
}
