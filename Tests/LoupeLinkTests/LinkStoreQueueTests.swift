import Dispatch
import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import LoupeLink

/// The listener's store writes (DECISIONS 142): batches of every connection gathered into one transaction while
/// the last one runs, each acknowledged only once its own transaction committed.
@Suite struct LinkStoreQueueTests {
    @Test func anIdleWriterStartsAtOnceAndABusyOneGathersTheNextTransaction() {
        var queue = LinkStoreQueue<String>(maxExchanges: 100)
        #expect(queue.enqueue("a", count: 10) == .startWriter)
        #expect(queue.nextWrite()?.map(\.batch) == ["a"])
        // While "a" is written, three connections hand theirs over: one transaction for all three.
        #expect(queue.enqueue("b", count: 10) == .none)
        #expect(queue.enqueue("c", count: 20) == .none)
        #expect(queue.enqueue("d", count: 30) == .none)
        #expect(queue.nextWrite()?.map(\.batch) == ["b", "c", "d"])
        #expect(queue.nextWrite() == nil)
        #expect(!queue.isWriting)
        #expect(queue.enqueue("e", count: 1) == .startWriter, "a stopped writer is started again")
    }

    @Test func aTransactionTakesWholeBatchesUpToItsLimitInOrder() {
        var queue = LinkStoreQueue<Int>(maxExchanges: 100)
        _ = queue.enqueue(1, count: 60)
        _ = queue.enqueue(2, count: 40)
        _ = queue.enqueue(3, count: 1)
        _ = queue.enqueue(4, count: 500)
        _ = queue.enqueue(5, count: 5)
        #expect(queue.nextWrite()?.map(\.batch) == [1, 2])
        #expect(queue.nextWrite()?.map(\.batch) == [3])
        #expect(queue.nextWrite()?.map(\.batch) == [4], "a batch over the limit goes whole, alone")
        #expect(queue.nextWrite()?.map(\.batch) == [5])
        #expect(queue.nextWrite() == nil)
    }

    @Test func aWriterThatCannotRunHandsBackEverything() {
        var queue = LinkStoreQueue<Int>(maxExchanges: 10)
        #expect(queue.enqueue(1, count: 1) == .startWriter)
        _ = queue.enqueue(2, count: 1)
        #expect(queue.takeAll().map(\.batch) == [1, 2])
        #expect(queue.queued.isEmpty)
        #expect(queue.enqueue(3, count: 1) == .startWriter)
    }

    // MARK: The listener's writer on a real thread, against a store the test holds closed

    /// A store whose first write blocks until the test opens it; it records each write's size, and refuses any
    /// batch holding an exchange whose operation is `refuse`.
    final class HeldStore: TraceStore {
        let inner = InMemoryTraceStore()
        let writes = Mutex<[Int]>([])
        let started: AsyncStream<Int>
        private let continuation: AsyncStream<Int>.Continuation
        private let held = Mutex(true)
        private let gate = DispatchSemaphore(value: 0)
        struct Refused: Error {}

        init() {
            (started, continuation) = AsyncStream.makeStream(of: Int.self)
        }

        func open() {
            if held.withLock({ held in defer { held = false }; return held }) { gate.signal() }
        }

        func write(_ exchanges: [TraceExchange]) throws {
            continuation.yield(exchanges.count)
            // Only the listener's one store thread gets here, so one signal releases the one write waiting.
            if held.withLock({ $0 }) { gate.wait() }
            writes.withLock { $0.append(exchanges.count) }
            if exchanges.contains(where: { $0.operation == "refuse" }) { throw Refused() }
            try inner.write(exchanges)
        }

        func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
        func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
            try inner.summaries(after: sequence, limit: limit)
        }
        func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
        func count() throws -> Int { try inner.count() }
    }

    static func batch(_ count: Int, operation: String = "op") -> [TraceExchange] {
        (0..<count).map { _ in
            TraceExchange(id: UUID(), operation: operation, method: "GET", url: "https://a.test/",
                          startedAt: Date(timeIntervalSince1970: 1), outcome: .success)
        }
    }

    @Test func batchesOfManyConnectionsShareATransactionAndEachCompletesOnlyOnceCommitted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString)").path
        let store = HeldStore()
        let listener = try await LinkListener.start(
            at: ListenAddress(host: "127.0.0.1", port: 0), identity: try LinkIdentity.loadOrCreate(in: folder),
            store: store, events: { _ in })
        let shared = listener.sharedForTests
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var started = store.started.makeAsyncIterator()

        let first = shared.write(Self.batch(3), on: loop)
        #expect(await started.next() == 3, "an idle writer writes the first batch at once")
        // Held in the store: the next three batches (one refused) queue behind it.
        let second = shared.write(Self.batch(4), on: loop)
        let refused = shared.write(Self.batch(1, operation: "refuse"), on: loop)
        let third = shared.write(Self.batch(5), on: loop)
        #expect(shared.storeQueue.withLock { $0.queued.count } == 3)
        store.open()
        try await first.get()
        try await second.get()
        try await third.get()
        await #expect(throws: HeldStore.Refused.self) { try await refused.get() }
        // One transaction of the three; refused, it is written again batch by batch, and only the refused one fails.
        #expect(store.writes.withLock { $0 } == [3, 10, 4, 1, 5])
        #expect(try store.count() == 12)
        #expect(listener.counts.stored == 12)
        await listener.stop()
    }
}
