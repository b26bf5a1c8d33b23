import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

@Suite("Pruning")
struct PruneTests {
    static func exchanges(_ count: Int, bodyBytes: Int = 100) -> [TraceExchange] {
        (0..<count).map { index in
            TraceExchange(
                id: UUID(), operation: "op\(index)", method: "GET", url: "https://api.example.test/\(index)",
                startedAt: Date(timeIntervalSince1970: 1_000), outcome: .success, status: 200,
                responseBody: TraceBody(data: Data(repeating: 0x61, count: bodyBytes), size: bodyBytes, isTruncated: false),
                attempts: [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: 1_000), circuitState: "closed")],
                events: [TraceEvent(kind: "circuit", at: Date(timeIntervalSince1970: 1_000), message: "closed → open")])
        }
    }

    private func operations(_ store: any TraceStore) throws -> [String] {
        try store.recent(limit: 1_000).map(\.operation)
    }

    @Test("a count bound keeps the newest N", arguments: StoreKind.allCases)
    func byCount(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let store = try kind.make(folder, now: now)
        let written = Self.exchanges(10)
        try store.write(written)
        let bytes = written.map(\.storedByteCount)

        let dry = try store.prune(TraceStoreBounds(maxCount: 4, maxBytes: nil, maxAge: nil), now: now.date, dryRun: true)
        #expect(dry == PruneResult(removedCount: 6, removedBytes: bytes[..<6].reduce(0, +), remainingCount: 4,
                                   remainingBytes: bytes[6...].reduce(0, +), reasons: [.count], isDryRun: true))
        #expect(try store.count() == 10)

        let result = try store.prune(TraceStoreBounds(maxCount: 4, maxBytes: nil, maxAge: nil), now: now.date)
        #expect(result.removedCount == 6 && result.remainingCount == 4 && !result.isDryRun)
        #expect(try operations(store) == ["op6", "op7", "op8", "op9"])
        // Within bounds: nothing more goes.
        let again = try store.prune(TraceStoreBounds(maxCount: 4, maxBytes: nil, maxAge: nil), now: now.date)
        #expect(again.removedCount == 0 && again.reasons.isEmpty && again.remainingCount == 4)
        #expect(try store.prune(TraceStoreBounds(maxCount: 0, maxBytes: nil, maxAge: nil), now: now.date).remainingCount == 0)
    }

    @Test("a byte bound removes the oldest until the rest fits", arguments: StoreKind.allCases)
    func byBytes(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let store = try kind.make(folder, now: now)
        let written = Self.exchanges(10, bodyBytes: 1_000)
        try store.write(written)
        let newestThree = written.suffix(3).map(\.storedByteCount).reduce(0, +)

        let result = try store.prune(TraceStoreBounds(maxCount: nil, maxBytes: newestThree, maxAge: nil), now: now.date)
        #expect(result.reasons == [.bytes])
        #expect(result.remainingBytes == newestThree && result.remainingCount == 3 && result.removedCount == 7)
        #expect(try operations(store) == ["op7", "op8", "op9"])
        // One byte less than the newest three: the oldest of them goes too.
        let tighter = try store.prune(TraceStoreBounds(maxCount: nil, maxBytes: newestThree - 1, maxAge: nil), now: now.date)
        #expect(tighter.removedCount == 1)
        #expect(try operations(store) == ["op8", "op9"])
    }

    @Test("an age bound removes what was stored before the cutoff, counted from the write", arguments: StoreKind.allCases)
    func byAge(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let store = try kind.make(folder, now: now)
        let written = Self.exchanges(6)
        try store.write(Array(written[..<3]))
        now.advance(days: 10)
        try store.write(Array(written[3...]))
        now.advance(days: 5)

        let bounds = TraceStoreBounds(maxCount: nil, maxBytes: nil, maxAge: TraceStoreBounds.defaultMaxAge)
        let result = try store.prune(bounds, now: now.date)
        #expect(result.reasons == [.age] && result.removedCount == 3)
        #expect(try operations(store) == ["op3", "op4", "op5"])
        now.advance(days: 10)
        #expect(try store.prune(bounds, now: now.date).remainingCount == 0)
    }

    @Test("bounds combine: age first, then count, then bytes", arguments: StoreKind.allCases)
    func combined(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let store = try kind.make(folder, now: now)
        let written = Self.exchanges(10)
        try store.write(Array(written[..<2]))
        now.advance(days: 20)
        try store.write(Array(written[2...]))
        let lastTwo = written.suffix(2).map(\.storedByteCount).reduce(0, +)
        let result = try store.prune(TraceStoreBounds(maxCount: 5, maxBytes: lastTwo, maxAge: 86_400), now: now.date)
        #expect(result.reasons == [.age, .count, .bytes])
        #expect(try operations(store) == ["op8", "op9"])
    }

    @Test("a bounded store prunes itself as it is written", arguments: StoreKind.allCases)
    func automatic(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let store = try kind.make(folder, bounds: TraceStoreBounds(maxCount: 10, maxBytes: nil, maxAge: nil), pruneEvery: 5, now: now)
        for _ in 0..<5 { try store.write(Self.exchanges(5)) }
        #expect(try store.count() == 10)
    }

    @Test("a writable SQLite store prunes to the store's own bounds when it opens; a read-only one never does")
    func automaticOnOpen() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let now = TestNow()
        let path = folder.file("traces.sqlite")
        let bounds = TraceStoreBounds(maxCount: 5, maxBytes: nil, maxAge: nil)
        do {
            let store = try SQLiteTraceStore(path: path, bounds: nil, now: now.clock)
            try store.write(Self.exchanges(20))
            try store.setBounds(bounds)
            try store.close()
        }
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 20)
        // The store's bounds apply, whatever the writer was opened with.
        let store = try SQLiteTraceStore(path: path, bounds: .unlimited, now: now.clock)
        #expect(try store.count() == 5)
        #expect(store.lastAutoPrune?.removedCount == 15)
        #expect(try reader.count() == 5)
    }

    @Test("attempts and events go with their exchange, and vacuum shrinks the file")
    func cascade() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(Self.exchanges(200, bodyBytes: 4_000))
        try store.prune(TraceStoreBounds(maxCount: 10, maxBytes: nil, maxAge: nil))
        let (attempts, events) = try store.pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attempt") ?? -1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? -1)
        }
        #expect(attempts == 10 && events == 10)
        let freeBefore = try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") ?? 0 }
        #expect(freeBefore > 100)
        try store.vacuum()
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") } == 0)
        #expect(try store.count() == 10)
    }

    @Test("stores that cannot delete say so instead of pretending")
    func unsupported() throws {
        #expect(throws: TraceStoreError.self) { try FailingStore().prune(.default) }
    }
}
