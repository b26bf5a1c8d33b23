import Dispatch
import Foundation
import Synchronization

/// Moves recorded items off the request path: a bounded queue drained by one background task into a store.
///
/// The decisions (accept or drop, when a batch is due, which flushes are done) belong to
/// ``TraceWriterStateMachine``; this class keeps it behind a short lock and carries out its actions: it parks and
/// wakes the background task, sleeps the batch window on the injected clock, and writes each batch. `enqueue`
/// only takes the lock. Items become exchanges in `prepare` (redaction and capping happen here, off the request
/// path) and each batch goes to the store in one `store.write` call. Store calls block, so they run on a private
/// dispatch queue rather than tying up a thread of the cooperative pool. A failing store is counted and never
/// reaches the caller.
package final class TraceWriter<Item: Sendable>: Sendable {
    typealias Machine = TraceWriterStateMachine<Item>

    /// Limits and timing of one writer.
    package struct Settings: Sendable {
        var capacity: Int
        var batchSize: Int
        var flushInterval: Duration
        var clock: any Clock<Duration>

        package init(capacity: Int, batchSize: Int, flushInterval: Duration, clock: any Clock<Duration>) {
            self.capacity = capacity
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.clock = clock
        }
    }

    /// The machine plus what it refers to but cannot hold as a value: suspended tasks and the window's timer.
    private struct State {
        var machine: Machine
        var flushWaiters: [Machine.FlushID: CheckedContinuation<Void, Never>] = [:]
        /// The background task, parked while the queue is empty; resumed with nothing, it asks the machine again.
        var parkedWorker: CheckedContinuation<Void, Never>?
        /// The batch-window timer; cancelled to write at once.
        var batchWindow: Task<Void, Never>?

        /// Carries out a producer's nudge; returns what must be resumed or cancelled outside the lock.
        mutating func take(_ nudge: Machine.Nudge) -> Wakeup {
            switch nudge {
            case .none: return Wakeup()
            case .wakeWorker: return Wakeup(worker: parkedWorker.take())
            case .endBatchWindow: return Wakeup(window: batchWindow.take())
            }
        }
    }

    /// One type for every writer, whatever its `Item`.
    typealias Wakeup = TraceWriterWakeup

    private let state: Mutex<State>
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let store: any TraceStoreWriting
    private let clock: any Clock<Duration>
    private let prepare: @Sendable ([Item]) -> [TraceExchange]
    private let io = DispatchQueue(label: "LoupeTrace.TraceWriter", qos: .utility)

    package init(store: any TraceStoreWriting, settings: Settings, prepare: @escaping @Sendable ([Item]) -> [TraceExchange]) {
        self.store = store
        self.clock = settings.clock
        self.state = Mutex(State(machine: Machine(
            capacity: settings.capacity, batchSize: settings.batchSize, flushInterval: settings.flushInterval)))
        self.prepare = prepare
        let task = Task(priority: .utility) { [self] in await run() }
        loop.withLock { $0 = task }
    }

    /// Items dropped because the queue was full or the writer had stopped.
    package var droppedCount: Int { state.withLock { $0.machine.dropped } }
    /// Batches the store failed to write.
    var failedWriteCount: Int { state.withLock { $0.machine.failedWrites } }
    /// Items the store committed.
    var writtenCount: Int { state.withLock { $0.machine.written } }
    /// Items lost in batches the store failed to write.
    var failedItemCount: Int { state.withLock { $0.machine.failedItems } }
    /// The last store error, for diagnostics.
    var lastError: String? { state.withLock { $0.machine.lastError } }

    /// Queues one item; returns `false` (and counts a drop) when the queue is full or the writer stopped.
    @discardableResult
    package func enqueue(_ item: consuming Item) -> Bool {
        var item: Item? = consume item  // moved into the queue below, not copied
        let (accepted, wakeup) = state.withLock { state -> (Bool, Wakeup) in
            guard let item = item.take() else { return (false, Wakeup()) }
            switch state.machine.enqueue(item) {
            case .dropped: return (false, Wakeup())
            case .accepted(let nudge): return (true, state.take(nudge))
            }
        }
        wakeup.perform()
        return accepted
    }

    /// Returns once every item accepted before the call has been handed to the store.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wakeup = state.withLock { state -> Wakeup? in
                switch state.machine.flush() {
                case .returnNow:
                    return nil
                case .wait(let id, let nudge):
                    state.flushWaiters[id] = continuation
                    return state.take(nudge)
                }
            }
            guard let wakeup else { return continuation.resume() }
            wakeup.perform()
        }
    }

    /// Stops accepting items; the background task writes what is queued, then ends. Does not wait.
    func stop() {
        state.withLock { state in state.take(state.machine.stop()) }.perform()
    }

    /// Stops, and waits until everything queued is written and the background task has ended.
    package func shutdown() async {
        stop()
        await loop.withLock { $0 }?.value
    }

    // MARK: The background task

    private func run() async {
        while true {
            switch await nextStep() {
            case .park:
                preconditionFailure("nextStep() waits out parking itself")
            case .sleep:
                await sleepBatchWindow()
            case .write(let batch):
                await write(batch)
            case .finish(let ids):
                let waiters = state.withLock { state in ids.compactMap { state.flushWaiters.removeValue(forKey: $0) } }
                waiters.forEach { $0.resume() }
                return
            }
        }
    }

    /// The machine's next step; parks here (the continuation stored under the same lock) until woken.
    private func nextStep() async -> Machine.Step {
        while true {
            var decided: Machine.Step?
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                decided = state.withLock { state -> Machine.Step? in
                    let step = state.machine.nextStep()
                    switch step {
                    case .park:
                        state.parkedWorker = continuation
                        return nil
                    case .sleep(let interval):
                        // Started under the lock, so a producer's `endBatchWindow` always finds it.
                        let clock = self.clock
                        state.batchWindow = Task { try? await clock.sleep(for: interval) }
                    case .write, .finish:
                        break
                    }
                    return step
                }
                if decided != nil { continuation.resume() }
            }
            // Parked, then woken: the machine is asked again.
            if let decided { return decided }
        }
    }

    private func sleepBatchWindow() async {
        let window = state.withLock { $0.batchWindow }
        await window?.value
        state.withLock { state in
            state.batchWindow = nil
            state.machine.batchWindowEnded()
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
            state.machine.batchWritten(batch.count, failure: failure).compactMap {
                state.flushWaiters.removeValue(forKey: $0)
            }
        }
        waiters.forEach { $0.resume() }
    }
}

/// What a producer resumes or cancels after the writer's lock is released, so nothing runs under it.
///
/// Not nested in the generic ``TraceWriter``: a nested type is generic too, and destroying one after every
/// `enqueue` went through its value witness, which looked up the metadata of the continuation, the optional and the
/// machine's step type at run time, for every exchange, on the request path. Its fields
/// depend on no `Item`: the parked worker is resumed with nothing and asks the machine for its step again.
struct TraceWriterWakeup {
    var worker: CheckedContinuation<Void, Never>?
    var window: Task<Void, Never>?

    func perform() {
        worker?.resume()  // woken: it asks the machine again
        window?.cancel()
    }
}
