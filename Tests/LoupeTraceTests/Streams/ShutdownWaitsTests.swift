import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// `shutdown()` waits for exchanges that are ending: a streamed body the app drops while `shutdown()` runs is
/// still recorded, not counted as dropped (issue 43, item 9).
@Suite struct ShutdownWaitsTests {
    struct Recording {
        let inspector: NetworkTraceInspector
        let store: InMemoryTraceStore
        let client: Client
        let clock: ManualClock
    }

    func recording(id: UUID, grace: Duration = .seconds(1)) -> Recording {
        let clock = ManualClock()
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(
            store: store, configuration: .init(flushInterval: .zero, clock: clock, shutdownGrace: grace))
        let client = Fixture.threeChunkClient(observer: inspector, id: id)
        return Recording(inspector: inspector, store: store, client: client, clock: clock)
    }

    /// Starts `shutdown()` while the app still holds a streamed response, and drops the body once `shutdown()` is
    /// under way (waiting on the clock, or already returned on code that does not wait).
    @Test func aBodyDroppedWhileShutdownRunsIsStillRecorded() async throws {
        let id = UUID()
        let recording = recording(id: id)
        // Only in the box (a local constant would keep the body alive to the end of the test).
        let held = Mutex<StreamedClientResponse?>(
            try await recording.client.stream(Fixture.request("https://api.example.test/report")))
        let returned = Mutex(false)
        let shutdown = Task {
            await recording.inspector.shutdown()
            returned.withLock { $0 = true }
        }
        // Whichever comes first: `shutdown()` waiting on the clock, or returning without waiting (on code that does
        // not wait, the first watcher is left waiting; it holds nothing).
        let (signal, fire) = AsyncStream.makeStream(of: Void.self)
        Task { await recording.clock.waitForSleepers(); fire.yield() }
        Task { await shutdown.value; fire.yield() }
        var first = signal.makeAsyncIterator()
        _ = await first.next()
        #expect(!returned.withLock { $0 }, "shutdown() returned while an exchange was ending")
        held.withLock { $0 = nil }
        await shutdown.value
        #expect(recording.inspector.droppedCount == 0)
        let trace = try #require(try recording.store.exchange(id: id))
        #expect(trace.status == 200)
        #expect(trace.events.contains { $0.kind == .bodyNotRead && $0.attributes["readBytes"] == "0" })
    }

    /// An exchange that never ends holds `shutdown()` only for the grace: then it is dropped and counted.
    @Test func anExchangeThatNeverEndsIsDroppedAfterTheGrace() async throws {
        let id = UUID()
        let recording = recording(id: id, grace: .seconds(2))
        let held = Mutex<StreamedClientResponse?>(
            try await recording.client.stream(Fixture.request("https://api.example.test/report")))
        let shutdown = Task { await recording.inspector.shutdown() }
        await recording.clock.waitForSleepers()
        #expect(recording.clock.requestedSleeps.contains(.seconds(2)))
        recording.clock.advance(by: .seconds(2))
        await shutdown.value
        held.withLock { $0 = nil }
        #expect(try recording.store.exchange(id: id) == nil)
        #expect(recording.inspector.droppedCount == 1)
    }

    /// Cancelling the task that shuts down stops the wait at once; nothing hangs.
    @Test func cancellingShutdownEndsTheWait() async throws {
        let id = UUID()
        let recording = recording(id: id, grace: .seconds(60))
        let held = Mutex<StreamedClientResponse?>(
            try await recording.client.stream(Fixture.request("https://api.example.test/report")))
        let shutdown = Task { await recording.inspector.shutdown() }
        await recording.clock.waitForSleepers()
        shutdown.cancel()
        await shutdown.value
        held.withLock { $0 = nil }
        #expect(recording.inspector.droppedCount == 1)
    }
}
