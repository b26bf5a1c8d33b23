import Foundation
import LoupeQuery
import LoupeTrace
import Synchronization

/// Where served answers come from: the recordings of a store (or a HAR file or cassette read into one), with only
/// their requests held for matching; a response is read from the store when it is served.
///
/// Recordings made on a miss (`--passthrough`) are kept in memory beside them.
package final class ServeLibrary: Sendable {
    /// The store the recordings are read from.
    let store: any TraceStore
    /// Each recording's exchange id, by index; new recordings past these are in ``added``.
    let ids: [UUID]
    /// Requests of the recordings, by index (what the book matches).
    package let requests: [ServeRequest]
    private let added = Mutex<[TraceExchange]>([])

    /// Reads the requests of the exchanges in `store` that `filter` selects, in recorded order. Exchanges that never
    /// got a response (transport errors, cancelled, short-circuited) have nothing to serve and are left out.
    package init(store: any TraceStore, filter: TraceFilter? = nil) throws {
        self.store = store
        var ids: [UUID] = []
        var requests: [ServeRequest] = []
        func add(_ exchange: TraceExchange) {
            guard exchange.status != nil else { return }
            ids.append(exchange.id)
            requests.append(ServeRequest(exchange))
        }
        if let sqlite = store as? SQLiteTraceStore {
            // In batches (three queries each, one batch in memory), not one read per exchange.
            try sqlite.forEachBatch(matching: filter) { batch in batch.forEach(add) }
        } else {
            for summary in try store.summaries(matching: filter, limit: .max) where summary.status != nil {
                guard let exchange = try store.exchange(id: summary.id) else { continue }
                add(exchange)
            }
        }
        self.ids = ids
        self.requests = requests
    }

    /// Recordings whose requests were kept as they were written into `store` (a HAR read into a temporary store):
    /// `ids` and `requests` in recorded order, one pair per recording; nothing is read back.
    package init(store: any TraceStore, ids: [UUID], requests: [ServeRequest]) {
        precondition(ids.count == requests.count, "one id per request")
        self.store = store
        self.ids = ids
        self.requests = requests
    }

    /// The recording at `index`, read whole.
    package func exchange(at index: Int) throws -> TraceExchange? {
        if index < ids.count { return try store.exchange(id: ids[index]) }
        return added.withLock { list in
            let offset = index - ids.count
            return list.indices.contains(offset) ? list[offset] : nil
        }
    }

    /// Keeps a recording made on a miss; its index follows the others' (the book appends it in the same order).
    package func append(_ exchange: TraceExchange) {
        added.withLock { $0.append(exchange) }
    }
}
