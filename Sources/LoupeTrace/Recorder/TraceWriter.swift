import Dispatch
import Foundation
import Synchronization

/// Moves recorded items off the request path: a bounded queue drained by one background task into a store.
///
/// `enqueue` only takes a short lock. The background task waits for the first item, then gathers more until it
/// has `batchSize` items or `flushInterval` has passed on the injected clock (whichever comes first), turns them
/// into exchanges with `prepare` (redaction and capping happen here, off the request path) and writes them in one
/// `store.write` call. Store calls block, so they run on a private dispatch queue rather than tying up a thread
/// of the cooperative pool. When the queue is full the newest item is dropped and counted; a failing store is
/// counted and never reaches the caller.
final class TraceWriter<Item: Sendable>: Sendable {
    /// Limits and timing of one writer.
    struct Settings: Sendable {
        var capacity: Int
        var batchSize: Int
        var flushInterval: Duration
        var clock: any Clock<Duration>
    }

    private struct State {
        var queue: [Item] = []
        /// Items accepted since creation; a flush waits until `processed` reaches the value it saw.
        var accepted = 0
        /// Items handed to the store (written or lost to a store error).
        var processed = 0
        var dropped = 0
        /// Items the store committed.
        var written = 0
        var failedWrites = 0
        /// Items in the batches the store failed to write.
        var failedItems = 0
        var lastError: String?
        var flushWaiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// The background task parked while the queue is empty.
        var workWaiter: CheckedContinuation<Void, Never>?
        /// The batch-window timer; cancelled to write at once.
        var sleeper: Task<Void, Never>?
        var isStopping = false
        var isStopped = false
    }

    private let state = Mutex(State())
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let store: any TraceStore
    private let settings: Settings
    private let prepare: @Sendable ([Item]) -> [TraceExchange]
    private let io = DispatchQueue(label: "LoupeTrace.TraceWriter", qos: .utility)

    init(store: any TraceStore, settings: Settings, prepare: @escaping @Sendable ([Item]) -> [TraceExchange]) {
        self.store = store
        self.settings = Settings(
            capacity: max(1, settings.capacity), batchSize: max(1, settings.batchSize),
            flushInterval: settings.flushInterval, clock: settings.clock)
        self.prepare = prepare
        let task = Task(priority: .utility) { [self] in await run() }
        loop.withLock { $0 = task }
    }

    /// Items dropped because the queue was full or the writer had stopped.
    var droppedCount: Int { state.withLock { $0.dropped } }
    /// Batches the store failed to write.
    var failedWriteCount: Int { state.withLock { $0.failedWrites } }
    /// Items the store committed.
    var writtenCount: Int { state.withLock { $0.written } }
    /// Items lost in batches the store failed to write.
    var failedItemCount: Int { state.withLock { $0.failedItems } }
    /// The last store error, for diagnostics.
    var lastError: String? { state.withLock { $0.lastError } }

    /// Queues one item; returns `false` (and counts a drop) when the queue is full or the writer stopped.
    @discardableResult
    func enqueue(_ item: consuming Item) -> Bool {
        let batchSize = settings.batchSize
        let capacity = settings.capacity
        var item: Item? = consume item  // moved into the queue below, not copied
        let (accepted, wake, sleeper) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard !state.isStopping, state.queue.count < capacity else {
                state.dropped += 1
                return (false, nil, nil)
            }
            if let item = item.take() { state.queue.append(item) }
            state.accepted += 1
            let wake = state.workWaiter
            state.workWaiter = nil
            // A full batch need not wait for the rest of the window.
            let sleeper = state.queue.count >= batchSize ? state.sleeper.take() : nil
            return (true, wake, sleeper)
        }
        wake?.resume()
        sleeper?.cancel()
        return accepted
    }

    /// Returns once every item accepted before the call has been handed to the store.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (done, wake, sleeper) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
                if state.processed >= state.accepted || state.isStopped { return (true, nil, nil) }
                state.flushWaiters.append((state.accepted, continuation))
                let wake = state.workWaiter
                state.workWaiter = nil
                return (false, wake, state.sleeper.take())
            }
            if done { continuation.resume() }
            wake?.resume()
            sleeper?.cancel()
        }
    }

    /// Stops accepting items; the background task writes what is queued, then ends. Does not wait.
    func stop() {
        let (wake, sleeper) = state.withLock { state in
            state.isStopping = true
            let wake = state.workWaiter
            state.workWaiter = nil
            return (wake, state.sleeper.take())
        }
        wake?.resume()
        sleeper?.cancel()
    }

    /// Stops, and waits until everything queued is written and the background task has ended.
    func shutdown() async {
        stop()
        await loop.withLock { $0 }?.value
    }

    // MARK: The background task

    private func run() async {
        while true {
            await waitForWork()
            await waitForBatchWindow()
            let (batch, isLast) = takeBatch()
            if !batch.isEmpty { await write(batch) }
            if isLast { break }
        }
        let waiters = state.withLock { state in
            state.isStopped = true
            defer { state.flushWaiters.removeAll() }
            return state.flushWaiters.map(\.continuation)
        }
        waiters.forEach { $0.resume() }
    }

    private func waitForWork() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if !state.queue.isEmpty || state.isStopping { return true }
                state.workWaiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets a batch fill up for at most one flush interval, unless someone needs it written now.
    private func waitForBatchWindow() async {
        let batchSize = settings.batchSize
        let (clock, interval) = (settings.clock, settings.flushInterval)
        let sleeper = state.withLock { state -> Task<Void, Never>? in
            if state.queue.count >= batchSize || !state.flushWaiters.isEmpty || state.isStopping { return nil }
            let sleeper = Task<Void, Never> { try? await clock.sleep(for: interval) }
            state.sleeper = sleeper
            return sleeper
        }
        await sleeper?.value
        state.withLock { $0.sleeper = nil }
    }

    private func takeBatch() -> (batch: [Item], isLast: Bool) {
        let batchSize = settings.batchSize
        return state.withLock { state in
            let count = min(batchSize, state.queue.count)
            let batch = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            return (batch, state.isStopping && state.queue.isEmpty)
        }
    }

    private func write(_ batch: [Item]) async {
        let (store, prepare) = (self.store, self.prepare)
        let failure: String? = await withCheckedContinuation { continuation in
            io.async {
                do {
                    try store.write(prepare(batch))
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: String(describing: error))
                }
            }
        }
        let waiters = state.withLock { state in
            state.processed += batch.count
            if let failure {
                state.failedWrites += 1
                state.failedItems += batch.count
                state.lastError = failure
            } else {
                state.written += batch.count
            }
            let processed = state.processed
            let ready = state.flushWaiters.filter { $0.target <= processed }.map(\.continuation)
            state.flushWaiters.removeAll { $0.target <= processed }
            return ready
        }
        waiters.forEach { $0.resume() }
    }
}
