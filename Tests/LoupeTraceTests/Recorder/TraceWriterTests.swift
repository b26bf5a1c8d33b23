import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("TraceWriter")
struct TraceWriterTests {
    static func exchange(_ n: Int) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "op \(n)", method: "GET", url: "https://api.example.test/\(n)",
            startedAt: Fixture.start, outcome: .success, status: 200)
    }

    static func writer(_ store: any TraceStore, batchSize: Int, clock: ManualClock) -> TraceWriter<TraceExchange> {
        TraceWriter(
            store: store,
            settings: .init(capacity: 100, batchSize: batchSize, flushInterval: .milliseconds(100), clock: clock),
            prepare: { $0 })
    }

    @Test("every writer shares one wakeup type, whose destruction after each enqueue needs no metadata lookup")
    func wakeupIsNotGeneric() {
        // A type nested in the generic writer would be a different type per `Item`, destroyed through its value
        // witness after every enqueue (DECISIONS 53).
        #expect(TraceWriter<TraceExchange>.Wakeup.self == TraceWriter<Int>.Wakeup.self)
        #expect(TraceWriter<TraceExchange>.Wakeup.self == TraceWriterWakeup.self)
    }

    @Test("the recorder queues each finished exchange as one reference, not a copy of its fields")
    func queuedExchangesAreReferences() async {
        // Copying a `PendingExchange` retains about forty references; the queue, the batch and the conversion
        // each made one (DECISIONS 53).
        let inspector = NetworkTraceInspector(store: InMemoryTraceStore())
        let writer: TraceWriter<ExchangeBox> = inspector.writer
        #expect(MemoryLayout<ExchangeBox>.size == MemoryLayout<AnyObject>.size)
        #expect(writer.droppedCount == 0)
        await inspector.shutdown()
    }

    @Test("a partial batch waits one flush interval on the injected clock, then is written whole")
    func flushInterval() async throws {
        let clock = ManualClock()
        let store = AnnouncingStore()
        let writer = Self.writer(store, batchSize: 10, clock: clock)
        writer.enqueue(Self.exchange(1))
        writer.enqueue(Self.exchange(2))
        await clock.waitForSleepers(1)
        #expect(try store.count() == 0)

        clock.advance(by: .milliseconds(100))
        var batches = store.batches.makeAsyncIterator()
        #expect(await batches.next() == 2)
        #expect(try store.count() == 2)
        await writer.shutdown()
    }

    @Test("full batches are written at once and never exceed the batch size; flush writes the rest")
    func batchSize() async throws {
        let clock = ManualClock()  // never advanced: only size and flush can trigger a write
        let store = AnnouncingStore()
        let writer = Self.writer(store, batchSize: 3, clock: clock)
        for n in 1...7 { writer.enqueue(Self.exchange(n)) }
        var batches = store.batches.makeAsyncIterator()
        #expect(await batches.next() == 3)
        #expect(await batches.next() == 3)
        await writer.flush()
        #expect(await batches.next() == 1)
        #expect(store.inner.all.map(\.operation) == (1...7).map { "op \($0)" })
        await writer.shutdown()
    }

    @Test("shutdown writes everything queued, then refuses more")
    func shutdownDrains() async throws {
        let store = InMemoryTraceStore()
        let writer = Self.writer(store, batchSize: 10, clock: ManualClock())
        for n in 1...5 { writer.enqueue(Self.exchange(n)) }
        await writer.shutdown()
        #expect(try store.count() == 5)
        #expect(writer.enqueue(Self.exchange(6)) == false)
        #expect(writer.droppedCount == 1)
        await writer.flush()  // returns at once once stopped
    }

    @Test("when the queue is full the newest exchanges are dropped, counted, and reported on the next one")
    func queueFull() async throws {
        let store = GatedStore()
        let inspector = NetworkTraceInspector(store: store, configuration: .init(queueCapacity: 2, batchSize: 1))
        let client = Fixture.client([.status(200)], observer: inspector)
        var writes = store.writesStarted.makeAsyncIterator()

        _ = try await client.execute(Fixture.request("https://api.example.test/1"))
        #expect(await writes.next() == 1)  // the writer is now held inside the store
        for n in 2...5 {
            let response = try await client.execute(Fixture.request("https://api.example.test/\(n)"))
            #expect(response.head.status.code == 200)  // requests never wait for the recorder
        }
        #expect(inspector.droppedCount == 2)

        store.open()
        await inspector.flush()
        #expect(store.inner.all.map(\.url) == (1...3).map { "https://api.example.test/\($0)" })

        _ = try await client.execute(Fixture.request("https://api.example.test/6"))
        await inspector.flush()
        let latest = try #require(store.inner.all.last)
        #expect(latest.url == "https://api.example.test/6")
        #expect(latest.events.map(\.kind) == [.recorderDrop])
        #expect(latest.events.first?.attributes["count"] == "2")
        await inspector.shutdown()
    }

    @Test("store errors are counted and never reach the request")
    func storeErrors() async throws {
        let inspector = NetworkTraceInspector(store: FailingStore())
        let client = Fixture.client([.status(200)], observer: inspector)
        for n in 1...3 {
            let response = try await client.execute(Fixture.request("https://api.example.test/\(n)"))
            #expect(response.head.status.code == 200)
        }
        await inspector.flush()
        #expect(inspector.failedWriteCount >= 1)
        #expect(inspector.lastWriteError?.contains("DiskFull") == true)
        await inspector.shutdown()
    }
}
