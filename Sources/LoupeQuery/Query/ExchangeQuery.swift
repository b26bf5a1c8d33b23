import Foundation
import LoupeTrace

/// Which exchanges the exchanges list shows, and in what order: a filter applied to the whole store (in SQL for the
/// SQLite store), optionally narrowed to a set of exchanges (the TUI's marks).
public struct ExchangeQuery: Hashable, Sendable {
    /// Exchanges matching this filter, or all when `nil`.
    public var filter: TraceFilter?
    /// The order rows are returned in.
    public var order: ExchangeOrder
    /// Only these exchanges (the TUI's marks), or all when nil.
    public var ids: Set<UUID>?
    /// Only exchanges recorded up to this sequence, or all when nil: the list as it stood at a moment, for a count
    /// taken in the background while arrivals go on being added to the list by the reader that asked for it.
    public var throughSequence: Int64?

    /// - Parameters:
    ///   - filter: the filter; `nil` for all.
    ///   - order: the order; by default oldest first.
    ///   - ids: only these exchanges; `nil` for all.
    ///   - throughSequence: only exchanges recorded up to this sequence; `nil` for all.
    public init(filter: TraceFilter? = nil, order: ExchangeOrder = .oldestFirst, ids: Set<UUID>? = nil,
                throughSequence: Int64? = nil) {
        self.filter = filter
        self.order = order
        self.ids = ids
        self.throughSequence = throughSequence
    }

    /// Whether `exchange` belongs to the list (its place in the order aside).
    package func includes(_ exchange: TraceExchange) -> Bool {
        (ids?.contains(exchange.id) ?? true) && (filter?.matches(exchange) ?? true)
            && throughSequence.map { (exchange.sequence ?? .max) <= $0 } ?? true
    }
}
