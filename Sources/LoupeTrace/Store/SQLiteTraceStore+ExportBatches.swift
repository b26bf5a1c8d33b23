import Foundation

/// The batched read a HAR export runs on.
extension SQLiteTraceStore {
    /// Writes the exchanges matching `filter` (all when `nil`), oldest first, into `writer`, read as
    /// ``forEachBatch(matching:batchSize:byteBudget:_:)`` reads them but for the header lists stored in the exact
    /// form ``StoredHeaderText`` reads: those are copied into the file without being parsed (parsing every name and
    /// value into a `String` was the largest part of an export's reading).
    package func export(matching filter: TraceFilter?, into writer: inout HARWriter, batchSize: Int = 500,
                        byteBudget: Int = 8 << 20) throws {
        try forEachBatch(matching: filter, batchSize: batchSize, byteBudget: byteBudget, keepingStoredHeaders: true) {
            batch, headers in
            for (exchange, stored) in zip(batch, headers) {
                try writer.append(exchange, storedHeaders: stored)
            }
        }
    }
}
