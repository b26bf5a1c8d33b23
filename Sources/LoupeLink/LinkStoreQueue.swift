import DequeModule

/// The listener's store writes as a value: every connection's batches in one queue, written by one thread, many
/// batches to a transaction.
///
/// A connection hands over the exchanges it read and acknowledges them to its app once ``LinkListener`` reports
/// them committed, as before; what changed is that the store's thread takes every batch queued while its last
/// transaction ran (whole batches, in order, up to ``maxExchanges``) into the next one, where it wrote one
/// transaction per batch of one connection's read. Nothing waits for a window: an idle writer starts at once, and
/// a busy one is what gathers the next batch, so the transactions grow with the load and the latency does not.
///
/// `Batch` is whatever the listener needs back when its transaction ends (its exchanges and the promise that
/// sends the ack); the queue only counts exchanges and their bytes. A transaction is bounded by both: 4,096
/// exchanges of 1 MiB bodies in one would grow SQLite's write-ahead log by 4 GiB, and the store prunes only
/// between writes.
struct LinkStoreQueue<Batch> {
    struct Entry {
        var batch: Batch
        /// Its exchanges.
        var count: Int
        /// What they count for against the store's size bound (``TraceExchange/storedByteCount``).
        var bytes: Int
    }

    enum EnqueueAction: Equatable {
        /// The writer is idle: start it (it asks ``nextWrite()`` until that says stop).
        case startWriter
        /// The running writer takes it with its next transaction.
        case none
    }

    /// The most exchanges one transaction takes (a single larger batch still goes whole).
    let maxExchanges: Int
    /// The most bytes one transaction takes (a single larger batch still goes whole).
    let maxBytes: Int
    private(set) var queued = Deque<Entry>()
    /// Whether a writer is running: between ``EnqueueAction/startWriter`` and the ``nextWrite()`` that returns nil.
    private(set) var isWriting = false

    init(maxExchanges: Int, maxBytes: Int = .max) {
        self.maxExchanges = max(1, maxExchanges)
        self.maxBytes = max(1, maxBytes)
    }

    /// Queues a connection's batch of `count` exchanges counting `bytes`.
    mutating func enqueue(_ batch: Batch, count: Int, bytes: Int = 0) -> EnqueueAction {
        queued.append(Entry(batch: batch, count: count, bytes: bytes))
        guard !isWriting else { return .none }
        isWriting = true
        return .startWriter
    }

    /// The writer's next transaction: the oldest batches whose exchanges fit ``maxExchanges`` and ``maxBytes`` (at
    /// least one), or nil when none is queued, and then the writer stops until the next
    /// ``enqueue(_:count:bytes:)`` starts it.
    mutating func nextWrite() -> [Entry]? {
        guard !queued.isEmpty else {
            isWriting = false
            return nil
        }
        var taken: [Entry] = []
        var count = 0
        var bytes = 0
        while let first = queued.first,
              taken.isEmpty || (count + first.count <= maxExchanges && first.bytes <= maxBytes - bytes)
        {
            count += first.count
            bytes += first.bytes
            taken.append(queued.removeFirst())
        }
        return taken
    }

    /// Everything queued, for a writer that cannot run (the listener is stopping): the writer counts as stopped.
    mutating func takeAll() -> [Entry] {
        isWriting = false
        defer { queued.removeAll() }
        return Array(queued)
    }
}
