import Foundation
import LoupeQuery
import LoupeTrace
import Synchronization

/// Where served answers come from: the recordings of a store, a cassette or a HAR file, with only their requests
/// held for matching; a response is read from its source (the store, or the entry's bytes in the file) when it is
/// served.
///
/// Recordings made on a miss (`--passthrough`) are kept in memory beside them.
package final class ServeLibrary: Sendable {
    /// Reads the recording at an index below `requests.count` (new recordings past these are in ``added``).
    private let read: @Sendable (Int) throws -> TraceExchange?
    /// Requests of the recordings, by index (what the book matches).
    package let requests: [ServeRequest]
    private let added = Mutex<[TraceExchange]>([])

    /// Reads the requests of the exchanges in `store` that `filter` selects, in recorded order. Exchanges that never
    /// got a response (transport errors, cancelled, short-circuited) have nothing to serve and are left out.
    /// With `keptHeaders`, only those request headers are held (``ServeRequest/keepingHeaders(_:)``).
    package convenience init(store: any TraceStore, filter: TraceFilter? = nil, keptHeaders: [String]? = nil) throws {
        var ids: [UUID] = []
        var requests: [ServeRequest] = []
        func add(_ exchange: TraceExchange) {
            guard exchange.status != nil else { return }
            ids.append(exchange.id)
            let request = ServeRequest(exchange)
            requests.append(keptHeaders.map(request.keepingHeaders) ?? request)
        }
        if let sqlite = store as? SQLiteTraceStore {
            // In batches, and only the request side: the response is read when it is served.
            try sqlite.forEachRequestBatch(matching: filter) { batch in batch.forEach(add) }
        } else {
            for summary in try store.summaries(matching: filter, limit: .max) where summary.status != nil {
                guard let exchange = try store.exchange(id: summary.id) else { continue }
                add(exchange)
            }
        }
        self.init(store: store, ids: ids, requests: requests)
    }

    /// Recordings whose requests were kept as they were written into `store` (a HAR read into a temporary store):
    /// `ids` and `requests` in recorded order, one pair per recording; nothing is read back.
    package convenience init(store: any TraceStore, ids: [UUID], requests: [ServeRequest]) {
        precondition(ids.count == requests.count, "one id per request")
        self.init(requests: requests) { index in try store.exchange(id: ids[index]) }
    }

    /// Recordings held elsewhere: `requests` in recorded order, and `read`, which reads the recording at an index
    /// of `requests` when it is served (from any thread).
    package init(requests: [ServeRequest], read: @escaping @Sendable (Int) throws -> TraceExchange?) {
        self.requests = requests
        self.read = read
    }

    /// The recording at `index`, read whole.
    package func exchange(at index: Int) throws -> TraceExchange? {
        if index < requests.count { return try read(index) }
        return added.withLock { list in
            let offset = index - requests.count
            return list.indices.contains(offset) ? list[offset] : nil
        }
    }

    /// Keeps a recording made on a miss; its index follows the others' (the book appends it in the same order).
    package func append(_ exchange: TraceExchange) {
        added.withLock { $0.append(exchange) }
    }
}
