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

    /// How many selected exchanges carried a stream (server-sent events, WebSocket): not served yet, so a request
    /// for one is a miss.
    package let streamsLeftOut: Int

    /// Reads the requests of the exchanges in `store` that `filter` selects, in recorded order. Exchanges that never
    /// got a response (transport errors, cancelled, short-circuited) have nothing to serve and are left out.
    package init(store: any TraceStore, filter: TraceFilter? = nil) throws {
        self.store = store
        var ids: [UUID] = []
        var requests: [ServeRequest] = []
        var streams = 0
        func add(_ exchange: TraceExchange) {
            guard exchange.status != nil else { return }
            if exchange.stream != nil { return streams += 1 }
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
        self.streamsLeftOut = streams
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
