import Foundation
import LoupeQuery
import LoupeTrace

/// The batched read a HAR export runs on.
extension SQLiteTraceStore {
    /// Writes the exchanges matching `filter` (all when `nil`), oldest first, into `writer`, read as
    /// ``forEachBatch(matching:batchSize:byteBudget:_:)`` reads them but for the header lists stored in the exact
    /// form ``StoredHeaderText`` reads: those are copied into the file without being parsed (parsing every name and
    /// value into a `String` was the largest part of an export's reading).
    ///
    /// The batches are read on a thread of their own, one ahead of the batch being written (``BatchReadAhead``):
    /// reading and writing then share the machine's cores, and `writer` and its sink stay on the caller's thread.
    /// Up to three batches are alive at once (being read, waiting, being written), so each holds a quarter of what
    /// a plain batched read holds (`byteBudget`).
    package func export(matching filter: TraceFilter?, into writer: inout HARWriter, batchSize: Int = 500,
                        byteBudget: Int = 2 << 20) throws {
        let ahead = BatchReadAhead<([TraceExchange], [StoredHeaderPair])>.start { [self] put in
            // Errors arrive as `guarded` made them: the store's, or the filter's own.
            try forEachBatch(matching: filter, batchSize: batchSize, byteBudget: byteBudget, keepingStoredHeaders: true) {
                batch, headers in try put((batch, headers))
            }
        }
        try ahead.forEach { batch, headers in
            for (exchange, stored) in zip(batch, headers) {
                try writer.append(exchange, storedHeaders: stored)
            }
        }
    }
}
