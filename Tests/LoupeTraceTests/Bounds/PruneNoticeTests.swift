import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Every prune that removes exchanges leaves a trace: a `store-prune` event on the next exchange written (by any
/// process), the store's last prune, and what a writer's automatic prunes removed for its command to print.
@Suite("Prune notices")
struct PruneNoticeTests {
    static func pruneEvents(_ store: SQLiteTraceStore) throws -> [TraceEvent] {
        try store.exchanges(matching: nil, limit: 1_000).flatMap(\.events).filter { $0.kind == PruneNotice.eventKind }
    }

    @Test("an automatic prune is reported on the next exchange written, once")
    func automatic() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 20, bounds: TraceStoreBounds(maxCount: 100, maxBytes: nil, maxAge: nil))
        try SQLiteTraceStore(path: path, bounds: nil).setBounds(TraceStoreBounds(maxCount: 5, maxBytes: nil, maxAge: nil))

        let writer = try SQLiteTraceStore(path: path)
        #expect(writer.automaticPrunes?.removedCount == 15)
        #expect(writer.automaticPrunes?.summary.hasPrefix("15 exchanges (") == true)
        #expect(writer.automaticPrunes?.summary.hasSuffix(": over 5 exchanges") == true)
        #expect(try writer.lastPrune?.removedCount == 15)
        #expect(try Self.pruneEvents(writer).isEmpty)

        let next = Fixture.simple(100)
        try writer.write([next, Fixture.simple(101)])
        let stored = try #require(try writer.exchange(id: next.id))
        let event = try #require(stored.events.first { $0.kind == "store-prune" })
        #expect(event.attributes["removed"] == "15")
        #expect(event.attributes["reasons"] == "count")
        #expect(event.attributes["automatic"] == "true")
        #expect(event.at == next.startedAt)
        #expect(event.message.contains("The store removed the oldest 15 exchanges"))
        #expect(event.message.contains("at most 5 exchanges"))
        try writer.write([Fixture.simple(102)])
        #expect(try Self.pruneEvents(writer).count == 1)
    }

    @Test("a prune by one process is reported by the next exchange another writes; dry runs leave no notice")
    func acrossProcesses() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 10, bounds: nil)
        let pruner = try SQLiteTraceStore(path: path, bounds: nil)
        _ = try pruner.prune(TraceStoreBounds(maxCount: 2, maxBytes: nil, maxAge: nil), now: Date(), dryRun: true)
        #expect(try pruner.lastPrune == nil)
        try pruner.prune(TraceStoreBounds(maxCount: 8, maxBytes: nil, maxAge: nil))
        try pruner.prune(TraceStoreBounds(maxCount: 6, maxBytes: nil, maxAge: nil))
        #expect(try pruner.lastPrune?.removedCount == 2)
        #expect(pruner.automaticPrunes == nil)

        let recorder = try SQLiteTraceStore(path: path)
        try recorder.write([Fixture.simple(50)])
        let events = try Self.pruneEvents(recorder)
        #expect(events.count == 1)
        // Two prunes merged into one notice.
        #expect(events.first?.attributes["removed"] == "4")
        #expect(events.first?.attributes["prunes"] == "2")
        #expect(events.first?.attributes["automatic"] == "false")
        #expect(events.first?.message.hasPrefix("A prune removed the oldest 4 exchanges") == true)
    }

    @Test("notices merge: counts add up, reasons join in order, the latest bounds stay")
    func merging() {
        let early = Date(timeIntervalSince1970: 1_000)
        let late = Date(timeIntervalSince1970: 2_000)
        let first = PruneNotice(
            PruneResult(removedCount: 3, removedBytes: 300, remainingCount: 0, remainingBytes: 0, reasons: [.bytes], isDryRun: false),
            bounds: .default, at: early, isAutomatic: true)
        let second = PruneNotice(
            PruneResult(removedCount: 2, removedBytes: 2_048, remainingCount: 0, remainingBytes: 0, reasons: [.age], isDryRun: false),
            bounds: .unlimited, at: late, isAutomatic: true)
        let merged = first.merged(with: second)
        #expect(merged.removedCount == 5 && merged.removedBytes == 2_348 && merged.prunes == 2)
        #expect(merged.reasons == [.age, .bytes])
        #expect(merged.firstAt == early && merged.lastAt == late && merged.bounds == .unlimited)
    }
}
