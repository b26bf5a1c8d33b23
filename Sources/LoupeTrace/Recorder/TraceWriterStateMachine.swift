import DequeModule

/// The trace writer's queue, batching and flush bookkeeping as a value: no clock, no locks, no tasks.
///
/// ``TraceWriter`` keeps it behind a lock and carries out the actions its methods return (wake the background
/// task, end the batch window early, write a batch, resume flush waiters), so every interleaving can be tested
/// with plain calls. The background task asks ``nextStep()`` what to do and reports back with
/// ``batchWindowEnded()`` and ``batchWritten(_:failure:)``.
///
/// The queue is bounded: when it is full (or the writer is stopping) the newest item is dropped and counted.
/// A partial batch waits at most one flush interval for more items, unless a flush or a stop needs it now.
struct TraceWriterStateMachine<Item: Sendable>: Sendable {
    /// Identifies one `flush()` call waiting for its items to reach the store.
    typealias FlushID = UInt64

    /// What the background task is doing, as far as producers need to know.
    enum Worker: Sendable, Hashable {
        /// Parked until there is work: whoever gives it some must wake it.
        case parked
        /// Sleeping one flush interval for a partial batch to fill; `ending` once an early end was asked for.
        case batchWindow(ending: Bool)
        /// Running or writing; it asks ``nextStep()`` again when done. `windowElapsed` lets the next step write
        /// the partial batch it has already waited for.
        case busy(windowElapsed: Bool)
        /// Ended after a stop, with the queue empty.
        case finished
    }

    /// What a producer (enqueue, flush, stop) must do for the background task.
    enum Nudge: Sendable, Hashable {
        case none
        /// Resume the parked background task.
        case wakeWorker
        /// Cancel the batch window's sleep: the batch is to be written now.
        case endBatchWindow
    }

    enum EnqueueAction: Sendable, Hashable {
        /// Queue full or writer stopping: the item was dropped and counted.
        case dropped
        case accepted(Nudge)
    }

    enum FlushAction: Sendable, Hashable {
        /// Nothing accepted before the call is still pending (or the writer has finished): return at once.
        case returnNow
        /// Park the caller under `id` until ``batchWritten(_:failure:)`` or the final step returns it.
        case wait(FlushID, Nudge)
    }

    /// What the background task does next.
    enum Step: Sendable {
        /// Park until a producer's ``Nudge/wakeWorker``.
        case park
        /// Sleep this long (unless ended early), then report ``batchWindowEnded()``.
        case sleep(Duration)
        /// Prepare and store these items, then report ``batchWritten(_:failure:)``.
        case write([Item])
        /// End the task, resuming these flush waiters first.
        case finish([FlushID])
    }

    let capacity: Int
    let batchSize: Int
    let flushInterval: Duration

    private(set) var queue = Deque<Item>()
    private(set) var worker = Worker.busy(windowElapsed: false)
    /// Items accepted since creation; a flush waits until `processed` reaches the value it saw.
    private(set) var accepted = 0
    /// Items handed to the store (written or lost to a store error).
    private(set) var processed = 0
    private(set) var dropped = 0
    /// Items the store committed.
    private(set) var written = 0
    /// Batches the store failed to write.
    private(set) var failedWrites = 0
    /// Items in the batches the store failed to write.
    private(set) var failedItems = 0
    private(set) var lastError: String?
    private(set) var isStopping = false
    private var flushWaiters: Deque<(target: Int, id: FlushID)> = []
    private var nextFlushID: FlushID = 0

    /// A running writer with an empty queue; capacity and batch size are at least 1.
    init(capacity: Int, batchSize: Int, flushInterval: Duration) {
        self.capacity = max(1, capacity)
        self.batchSize = max(1, batchSize)
        self.flushInterval = flushInterval
    }

    /// Whether the background task has ended.
    var isFinished: Bool { worker == .finished }

    // MARK: Producers

    /// Queues one item (on the request path: constant time, no allocation beyond the queue's growth).
    mutating func enqueue(_ item: consuming Item) -> EnqueueAction {
        guard !isStopping, queue.count < capacity else {
            dropped += 1
            return .dropped
        }
        queue.append(item)
        accepted += 1
        switch worker {
        case .parked:
            worker = .busy(windowElapsed: false)
            return .accepted(.wakeWorker)
        case .batchWindow(ending: false) where queue.count >= batchSize:
            // A full batch need not wait for the rest of the window.
            worker = .batchWindow(ending: true)
            return .accepted(.endBatchWindow)
        case .batchWindow, .busy, .finished:
            return .accepted(.none)
        }
    }

    /// A caller wants every item accepted so far handed to the store.
    mutating func flush() -> FlushAction {
        if processed >= accepted || isFinished { return .returnNow }
        nextFlushID += 1
        flushWaiters.append((accepted, nextFlushID))
        return .wait(nextFlushID, hurry())
    }

    /// Stops accepting items; the background task writes what is queued, then finishes.
    mutating func stop() -> Nudge {
        isStopping = true
        return hurry()
    }

    /// Someone needs the queue written now: the worker must neither stay parked nor finish its window.
    private mutating func hurry() -> Nudge {
        switch worker {
        case .parked:
            worker = .busy(windowElapsed: false)
            return .wakeWorker
        case .batchWindow(ending: false):
            worker = .batchWindow(ending: true)
            return .endBatchWindow
        case .batchWindow(ending: true), .busy, .finished:
            return .none
        }
    }

    // MARK: The background task

    /// What the background task does now (it is running: it was never parked, or was woken, or finished a step).
    mutating func nextStep() -> Step {
        let windowElapsed = if case .busy(let elapsed) = worker { elapsed } else { false }
        if queue.isEmpty {
            guard isStopping else {
                worker = .parked
                return .park
            }
            worker = .finished
            defer { flushWaiters.removeAll() }
            return .finish(flushWaiters.map(\.id))
        }
        if !windowElapsed, queue.count < batchSize, flushWaiters.isEmpty, !isStopping {
            worker = .batchWindow(ending: false)
            return .sleep(flushInterval)
        }
        let count = min(batchSize, queue.count)
        let batch = Array(queue.prefix(count))
        queue.removeFirst(count)
        worker = .busy(windowElapsed: false)
        return .write(batch)
    }

    /// The batch window's sleep is over (elapsed or ended early): the next step writes what is queued.
    mutating func batchWindowEnded() {
        worker = .busy(windowElapsed: true)
    }

    /// The store took a batch of `count` items (`failure` describes its error, if it threw); returns the flush
    /// waiters whose items have all been handed to the store now.
    mutating func batchWritten(_ count: Int, failure: String?) -> [FlushID] {
        processed += count
        if let failure {
            failedWrites += 1
            failedItems += count
            lastError = failure
        } else {
            written += count
        }
        // Targets only grow along the queue, so the ready waiters are a prefix.
        var ready: [FlushID] = []
        while let first = flushWaiters.first, first.target <= processed {
            ready.append(first.id)
            flushWaiters.removeFirst()
        }
        return ready
    }
}
