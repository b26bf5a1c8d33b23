import Foundation
import LoupeQuery
import LoupeTrace

/// One side of a comparison (a store, a HAR file, a cassette, or a filter over one): its groups by operation and
/// by host. At most ``maximumGroups`` of each are kept; exchanges of further ones are counted under
/// ``otherGroup``, so a store with a million distinct operation names still fits in memory.
package struct SideFigures: Sendable {
    package var total = 0
    package var operations: [String: GroupFigures] = [:]
    package var hosts: [String: GroupFigures] = [:]

    package static let maximumGroups = 1_000
    /// The group of exchanges past ``maximumGroups`` (no host name has parentheses; an operation so named would share it).
    package static let otherGroup = "(others)"

    package init() {}

    package mutating func add(_ figures: ExchangeFigures) {
        total += 1
        Self.add(figures, key: figures.operation, to: &operations)
        Self.add(figures, key: figures.host, to: &hosts)
    }

    private static func add(_ figures: ExchangeFigures, key: String, to groups: inout [String: GroupFigures]) {
        let key = groups[key] != nil || groups.count < maximumGroups ? key : otherGroup
        groups[key, default: GroupFigures()].add(figures)
    }

    /// Reads every exchange of `store` that `filter` selects: a store's few columns in batches, or, for a store
    /// held in memory (a HAR file read in), each exchange.
    package static func read(_ store: any TraceStore, filter: TraceFilter?) throws -> SideFigures {
        var side = SideFigures()
        if let sqlite = store as? SQLiteTraceStore {
            try sqlite.forEachFigures(matching: filter) { side.add($0) }
        } else if let memory = store as? InMemoryTraceStore {
            for exchange in try memory.exchanges(matching: filter, limit: .max) { side.add(ExchangeFigures(exchange)) }
        } else {
            for summary in try store.summaries(matching: filter, limit: .max).reversed() {
                guard let exchange = try store.exchange(id: summary.id) else { continue }
                side.add(ExchangeFigures(exchange))
            }
        }
        return side
    }
}
