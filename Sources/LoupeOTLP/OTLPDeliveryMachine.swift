import DequeModule

/// The sender's decisions, as a value: which batch to send next, how long to wait before a retry, what to drop
/// and count. The loop that carries them out (`OTLPDelivery`) only sends, sleeps and asks again, so every
/// rule here is tested on plain values.
///
/// - One batch is in flight at a time, oldest first; it is retried after a connection failure or a 429, 502, 503
///   or 504, waiting what `Retry-After` asks (capped at ``Settings/maxRetryAfter``) or else an exponential backoff
///   from ``Settings/initialBackoff`` to ``Settings/maxBackoff``, each delay shortened by up to ``Settings/jitter``
///   of itself (a random number the caller draws), so restarted collectors are not hit by every app at once.
/// - After ``Settings/maxAttempts`` tries a batch is given up (counted as failed) and the machine is in an
///   outage: each later batch gets one try, until one gets through, so a collector that is gone costs one try per
///   batch rather than the whole backoff each time, and a collector that comes back is used at once.
/// - Any other answer (400, 401, 413…) will not change on a retry: the batch is given up at once. A 2xx
///   answer's partial success (`rejected_spans`) counts those spans as failed.
/// - Memory is bounded by ``Settings/capacityBytes`` of queued request bodies: when a new batch does not fit, the
///   oldest queued batches are dropped first, and a batch larger than the whole capacity is dropped itself.
package struct OTLPDeliveryMachine: Sendable {
    /// The tuning.
    package struct Settings: Sendable, Equatable {
        package var capacityBytes: Int
        package var initialBackoff: Duration
        package var maxBackoff: Duration
        package var maxAttempts: Int
        package var jitter: Double
        package var maxRetryAfter: Duration

        package init(capacityBytes: Int = 16 << 20, initialBackoff: Duration = .milliseconds(250),
                     maxBackoff: Duration = .seconds(5), maxAttempts: Int = 6, jitter: Double = 0.2,
                     maxRetryAfter: Duration = .seconds(30)) {
            self.capacityBytes = max(0, capacityBytes)
            self.initialBackoff = max(.zero, initialBackoff)
            self.maxBackoff = max(self.initialBackoff, maxBackoff)
            self.maxAttempts = max(1, maxAttempts)
            self.jitter = min(max(jitter, 0), 1)
            self.maxRetryAfter = max(.zero, maxRetryAfter)
        }
    }

    /// How a send ended.
    package enum Outcome: Sendable, Equatable {
        /// 2xx: the collector took the batch, less `rejectedSpans` it said it refused.
        case accepted(rejectedSpans: Int)
        /// An answer a retry cannot change (the status; 0 for a request that could not be made).
        case refused(status: Int)
        /// A connection failure, a timeout, or 429/502/503/504, with the wait `Retry-After` asked for, if any.
        case retryable(reason: String, retryAfter: Duration?)
    }

    /// What the loop does next.
    package enum Action: Sendable, Equatable {
        /// Send this batch (again, when it is a retry).
        case send(OTLPBatch)
        /// Nothing is queued.
        case idle
    }

    package let settings: Settings
    private var queue: Deque<OTLPBatch> = []
    private var inFlight: OTLPBatch?
    private var attempts = 0
    private var backoff: Duration
    /// A batch was given up on for want of a collector, and none has got through since.
    private(set) var inOutage = false
    /// Bytes of request bodies held: queued and in flight.
    private(set) var heldBytes = 0
    /// What happened to every span handed in.
    private(set) var counts = OTLPDeliveryCounts()
    /// Why the last retryable send failed, for the one log line an outage gets.
    private(set) var lastFailure: String?

    package init(settings: Settings = Settings()) {
        self.settings = settings
        backoff = settings.initialBackoff
    }

    /// Whether nothing is queued or in flight.
    package var isEmpty: Bool { inFlight == nil && queue.isEmpty }

    /// Queues `batch`, dropping the oldest queued batches when it would not fit. Returns the spans dropped.
    @discardableResult
    package mutating func enqueue(_ batch: OTLPBatch) -> Int {
        counts.submittedSpans += batch.spanCount
        let size = batch.body.count
        guard size <= settings.capacityBytes - (inFlight?.body.count ?? 0) else {
            counts.droppedSpans += batch.spanCount
            counts.droppedBatches += 1
            return batch.spanCount
        }
        var dropped = 0
        while heldBytes + size > settings.capacityBytes, let oldest = queue.popFirst() {
            heldBytes -= oldest.body.count
            dropped += oldest.spanCount
            counts.droppedBatches += 1
        }
        counts.droppedSpans += dropped
        queue.append(batch)
        heldBytes += size
        return dropped
    }

    /// The batch to send now, or idle.
    package mutating func next() -> Action {
        if let inFlight { return .send(inFlight) }
        guard let batch = queue.popFirst() else { return .idle }
        inFlight = batch
        attempts = 0
        return .send(batch)
    }

    /// Takes the end of the send of the batch ``next()`` returned; returns how long to wait before asking
    /// ``next()`` again (nil: at once). `random` is in `0..<1` (the jitter's draw).
    package mutating func finished(_ outcome: Outcome, random: Double) -> Duration? {
        guard let batch = inFlight else { return nil }
        attempts += 1
        switch outcome {
        case .accepted(let rejected):
            let refused = min(max(0, rejected), batch.spanCount)
            counts.deliveredSpans += batch.spanCount - refused
            counts.failedSpans += refused
            counts.deliveredBatches += 1
            inOutage = false
            backoff = settings.initialBackoff
            release()
            return nil
        case .refused(let status):
            lastFailure = status == 0 ? "the request could not be made" : "HTTP \(status)"
            counts.failedSpans += batch.spanCount
            counts.failedBatches += 1
            inOutage = false
            release()
            return nil
        case .retryable(let reason, let retryAfter):
            lastFailure = reason
            guard !inOutage, attempts < settings.maxAttempts else {
                counts.failedSpans += batch.spanCount
                counts.failedBatches += 1
                inOutage = true
                release()
                return nil
            }
            counts.retries += 1
            if let retryAfter { return min(max(.zero, retryAfter), settings.maxRetryAfter) }
            let delay = backoff * (1 - settings.jitter * min(max(random, 0), 1))
            backoff = min(backoff * 2, settings.maxBackoff)
            return delay
        }
    }

    /// Counts everything still held as failed and lets it go (the exporter is stopping).
    package mutating func abandon() {
        for batch in queue + (inFlight.map { [$0] } ?? []) {
            counts.failedSpans += batch.spanCount
            counts.failedBatches += 1
        }
        queue.removeAll()
        inFlight = nil
        heldBytes = 0
    }

    private mutating func release() {
        if let inFlight { heldBytes -= inFlight.body.count }
        inFlight = nil
        attempts = 0
    }
}

/// What became of the spans an exporter was given.
public struct OTLPDeliveryCounts: Sendable, Equatable {
    /// Spans handed to the exporter.
    public var submittedSpans = 0
    /// Spans the collector accepted.
    public var deliveredSpans = 0
    /// Requests the collector accepted.
    public var deliveredBatches = 0
    /// Sends repeated after a connection failure, 429, 502, 503 or 504.
    public var retries = 0
    /// Spans dropped unsent because the exporter's memory was full.
    public var droppedSpans = 0
    /// Requests dropped unsent for room.
    public var droppedBatches = 0
    /// Spans given up on: refused by the collector, or not delivered after every retry.
    public var failedSpans = 0
    /// Requests given up on.
    public var failedBatches = 0

    /// All zero.
    public init() {}

    /// Spans that did not reach the collector, for whatever reason.
    public var undeliveredSpans: Int { droppedSpans + failedSpans }
}
