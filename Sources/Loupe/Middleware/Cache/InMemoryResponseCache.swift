import Foundation
import Synchronization

/// A ``ResponseCacheStore`` in memory, evicting the least recently used entries beyond a count or a byte total.
public final class InMemoryResponseCache: ResponseCacheStore {
    private let index: Mutex<LRUIndex<ResponseCacheKey, CachedResponse>>

    /// Keeps at most `maxEntries` entries and `maxBytes` bytes (bodies plus header fields); a larger entry is
    /// never stored.
    public init(maxEntries: Int = 256, maxBytes: Int = 16 * 1024 * 1024) {
        index = Mutex(LRUIndex(maxCount: maxEntries, maxCost: maxBytes))
    }

    /// How many entries are stored.
    public var count: Int { index.withLock { $0.count } }
    /// How many bytes the stored entries hold.
    public var totalBytes: Int { index.withLock { $0.totalCost } }

    public nonisolated(nonsending) func entry(for key: ResponseCacheKey) async -> CachedResponse? {
        index.withLock { $0.value(for: key) }
    }

    public nonisolated(nonsending) func store(_ entry: CachedResponse, for key: ResponseCacheKey) async {
        _ = index.withLock { $0.insert(entry, cost: entry.cost, for: key) }
    }

    public nonisolated(nonsending) func removeEntry(for key: ResponseCacheKey) async {
        index.withLock { $0.remove(key) }
    }
}
