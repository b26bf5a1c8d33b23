import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct InMemoryResponseCacheTests {
    static func key(_ path: String) -> ResponseCacheKey { ResponseCacheKey(get("https://x.test\(path)")) }
    static func entry(_ bytes: Int) -> CachedResponse {
        CachedResponse(head: HTTPResponse(status: .ok), body: Data(count: bytes), storedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func evictsTheLeastRecentlyUsedBeyondTheEntryCount() async {
        let cache = InMemoryResponseCache(maxEntries: 2)
        await cache.store(Self.entry(1), for: Self.key("/a"))
        await cache.store(Self.entry(1), for: Self.key("/b"))
        #expect(await cache.entry(for: Self.key("/a")) != nil)   // /a is now the most recent
        await cache.store(Self.entry(1), for: Self.key("/c"))
        #expect(await cache.entry(for: Self.key("/b")) == nil)
        #expect(await cache.entry(for: Self.key("/a")) != nil)
        #expect(await cache.entry(for: Self.key("/c")) != nil)
        #expect(cache.count == 2)
    }

    @Test func evictsBeyondTheByteTotalAndNeverStoresAnOversizedEntry() async {
        let cache = InMemoryResponseCache(maxEntries: 100, maxBytes: 1000)
        await cache.store(Self.entry(400), for: Self.key("/a"))
        await cache.store(Self.entry(400), for: Self.key("/b"))
        #expect(cache.totalBytes == 800)
        await cache.store(Self.entry(400), for: Self.key("/c"))
        #expect(cache.count == 2 && cache.totalBytes == 800)
        #expect(await cache.entry(for: Self.key("/a")) == nil)
        await cache.store(Self.entry(1001), for: Self.key("/huge"))
        #expect(await cache.entry(for: Self.key("/huge")) == nil)
        #expect(cache.count == 2)
        await cache.store(Self.entry(100), for: Self.key("/b"))
        #expect(cache.totalBytes == 500)
        await cache.removeEntry(for: Self.key("/b"))
        #expect(cache.count == 1 && cache.totalBytes == 400)
    }

    @Test func theKeyIsTheAbsoluteURLQueryIncluded() {
        #expect(ResponseCacheKey(get("https://x.test/a?q=1")).url == "https://x.test/a?q=1")
        #expect(ResponseCacheKey(get("https://x.test/a?q=1")) != ResponseCacheKey(get("https://x.test/a?q=2")))
    }

    /// 20,000 random operations against a plain array model of an LRU cache: same contents, same order of eviction.
    @Test func matchesAReferenceModel() async {
        let random = SeededRandomSource(seed: 42)
        let maxEntries = 5, maxBytes = 60
        let cache = InMemoryResponseCache(maxEntries: maxEntries, maxBytes: maxBytes)
        var model: [(key: String, cost: Int)] = []   // least recent first
        for _ in 0..<20_000 {
            let path = "/\(random.next() % 9)"
            let key = Self.key(path)
            switch random.next() % 3 {
            case 0:
                let found = await cache.entry(for: key)
                if let index = model.firstIndex(where: { $0.key == path }) {
                    #expect(found?.body.count == model[index].cost)
                    model.append(model.remove(at: index))
                } else {
                    #expect(found == nil)
                }
            case 1:
                let bytes = Int(random.next() % 25)
                await cache.store(Self.entry(bytes), for: key)
                model.removeAll { $0.key == path }
                if bytes <= maxBytes { model.append((path, bytes)) }
                while model.count > maxEntries || model.reduce(0, { $0 + $1.cost }) > maxBytes { model.removeFirst() }
            default:
                await cache.removeEntry(for: key)
                model.removeAll { $0.key == path }
            }
            #expect(cache.count == model.count)
            #expect(cache.totalBytes == model.reduce(0) { $0 + $1.cost })
        }
    }
}
