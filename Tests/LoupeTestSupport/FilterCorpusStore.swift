import Foundation
import Loupe
import LoupeFilter
import LoupeQuery
@testable import LoupeTrace

/// A store holding the corpus, and the corpus as written (with sequences) for in-memory matching.
final class FilterCorpusStore: Sendable {
    let folder: TemporaryFolder
    let store: SQLiteTraceStore
    let memory: InMemoryTraceStore
    let corpus: [TraceExchange]

    init(count: Int = 400, seed: UInt64 = 42) throws {
        folder = try TemporaryFolder()
        store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        memory = InMemoryTraceStore()
        let made = TraceCorpus.make(count: count, seed: seed)
        // Several batches, and one exchange written again, so sequences have a gap.
        for batch in stride(from: 0, to: made.count, by: 100) {
            try store.write(Array(made[batch..<min(batch + 100, made.count)]))
            try memory.write(Array(made[batch..<min(batch + 100, made.count)]))
        }
        try store.write([made[3]])
        try memory.write([made[3]])
        corpus = memory.all
    }

    deinit { folder.remove() }

    /// Ids of the newest `limit` matches, oldest first, computed in memory straight from `matches`.
    func expected(_ filter: TraceFilter, limit: Int = .max) -> [UUID] {
        Array(corpus.filter(filter.matches).suffix(limit)).map(\.id)
    }
}
