import Foundation
import GRDB
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Bounds belong to the store: recorded when it is created, changed through the store, applied by every writer.
@Suite("A store's own bounds")
struct StoreBoundsTests {
    static let five = TraceStoreBounds(maxCount: 5, maxBytes: nil, maxAge: nil)

    @Test("a new store records its creator's bounds; opening it with other bounds changes nothing")
    func recordedAtCreation() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        #expect(try SQLiteTraceStore(path: path, bounds: Self.five).bounds == Self.five)
        #expect(try SQLiteTraceStore(path: path, bounds: .default).bounds == Self.five)
        #expect(try SQLiteTraceStore(path: folder.file("plain.sqlite")).bounds == .default)
        #expect(try SQLiteTraceStore(path: folder.file("unbounded.sqlite"), bounds: nil).bounds == .unlimited)
        // Plain SQL can read them.
        let rows = try SQLiteTraceStore(path: path, readOnly: true).pool.read { db in
            // The bounds' keys; `search_start` is the text index's mark, not a bound.
            try Row.fetchAll(db, sql: "SELECT key, value FROM store_setting WHERE key LIKE 'max_%' ORDER BY key").map { "\($0[0] as String)=\($0[1] as DatabaseValue)" }
        }
        #expect(rows == ["max_age_seconds=NULL", "max_bytes=NULL", "max_count=5"])
    }

    @Test("a writer applies the store's bounds, not its own defaults")
    func writerAppliesStoreBounds() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 4, bounds: Self.five)
        // A writer with the default bounds (256 MB, 14 days: nothing to remove by them) still keeps 5.
        let writer = try SQLiteTraceStore(path: path, bounds: .default, pruneEvery: 10)
        try writer.write((10..<20).map { Fixture.simple($0) })
        #expect(try writer.count() == 5)
        #expect(writer.automaticPrunes?.removedCount == 9)
        #expect(writer.automaticPrunes?.reasons == [.count])
    }

    /// Issue 44, item 2: by count alone, a writer pruned only every `pruneEvery` exchanges, so large bodies took a
    /// 20 MiB store to 155 MiB. It prunes after every sixteenth of the size bound written as well.
    @Test("a long-running writer keeps within the size bound by bytes, not only every pruneEvery exchanges")
    func prunedByBytesWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let bound = 2 << 20
        let writer = try SQLiteTraceStore(path: path, bounds: TraceStoreBounds(maxCount: nil, maxBytes: bound, maxAge: nil),
                                          pruneEvery: 10_000)
        var peak = 0
        for index in 0..<60 {
            var exchange = Fixture.simple(index)
            exchange.requestBody = TraceBody(data: Data(repeating: UInt8(index), count: 200 << 10), size: 200 << 10,
                                             isTruncated: false)
            try writer.write([exchange])
            let stored = try writer.pool.read { try Double.fetchOne($0, sql: "SELECT TOTAL(stored_bytes) FROM exchange") }
            peak = max(peak, Int(stored ?? 0))
        }
        // The bound, a sixteenth of it written since the last prune, and the one write that crossed it.
        #expect(peak <= bound + bound / 16 + (201 << 10), "peak \(peak) bytes counted against a bound of \(bound)")
        #expect(try writer.count() < 15, "60 exchanges of 200 KiB do not fit 2 MiB")
        #expect(writer.automaticPrunes?.reasons == [.bytes])
    }

    @Test("bounds changed by another process apply from the running writer's next prune")
    func changedWhileWriting() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let writer = try SQLiteTraceStore(path: path, pruneEvery: 10)
        try writer.write((0..<5).map { Fixture.simple($0) })
        let other = try SQLiteTraceStore(path: path, bounds: nil)
        try other.setBounds(TraceStoreBounds(maxCount: 3, maxBytes: nil, maxAge: nil))
        try writer.write((5..<10).map { Fixture.simple($0) })
        #expect(try writer.count() == 3)
        #expect(try writer.bounds.maxCount == 3)
    }

    @Test("a store from before bounds gets its upgrading writer's bounds, or the defaults")
    func upgradeRecordsBounds() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let custom = TraceStoreBounds(maxCount: 1_000, maxBytes: 1 << 30, maxAge: nil)
        for (name, bounds, expected) in [("a", Optional(custom), custom), ("b", nil, TraceStoreBounds.default)] {
            let path = folder.file("\(name).sqlite")
            try StoreFixtures.oldStore(at: path, upTo: "v3")
            let store = try SQLiteTraceStore(path: path, bounds: bounds)
            #expect(try store.bounds == expected)
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == SQLiteSchema.version)
            #expect(try store.count() == 1)
        }
    }

    @Test("bounds that mean nothing are refused", arguments: [
        TraceStoreBounds(maxCount: 0), TraceStoreBounds(maxCount: -1), TraceStoreBounds(maxBytes: 0),
        TraceStoreBounds(maxBytes: -5), TraceStoreBounds(maxAge: 0), TraceStoreBounds(maxAge: -1),
        TraceStoreBounds(maxAge: .infinity), TraceStoreBounds(maxAge: .nan),
    ])
    func invalid(_ bounds: TraceStoreBounds) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let error = try #require(throws: TraceStoreError.self) { try store.setBounds(bounds) }
        #expect(error.code == .invalidBounds)
        #expect(try store.bounds == .default)
        #expect(throws: TraceStoreError.self) { try SQLiteTraceStore(path: folder.file("other.sqlite"), bounds: bounds) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("other.sqlite")))
    }

    @Test("bounds read as words")
    func described() {
        #expect(TraceStoreBounds.default.description == "256 MiB, 14 days, any number of exchanges")
        #expect(TraceStoreBounds.unlimited.description == "no limits")
        #expect(Self.five.description == "any size, any age, at most 5 exchanges")
    }
}
