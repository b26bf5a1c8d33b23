import DequeModule
import NIOCore

/// The app's side of the link as a value: the bounded buffer of encoded exchanges, what was written on the current
/// connection and not yet acknowledged, and the drop count.
///
/// Bounded in bytes. When a new exchange does not fit, the oldest exchange not yet written is dropped (and
/// counted) until it does; an exchange larger than the whole buffer is dropped itself. Written but unacknowledged
/// exchanges stay until the viewer's ack says they are stored, and go back to the front of the queue when the
/// connection is lost, so a listener killed mid-stream loses nothing the app does not count: every exchange is
/// either acknowledged or dropped (a duplicate id written again replaces its row).
struct LinkOutbox: Sendable {
    /// The most bytes of encoded exchanges held.
    let capacity: Int
    /// Written-unacknowledged first (`inFlight` of them), then not yet written.
    private var frames: Deque<ByteBuffer> = []
    /// How many at the front were written on the current connection.
    private(set) var inFlight = 0
    private(set) var bytes = 0
    /// Exchanges dropped since the link started.
    private(set) var dropped = 0
    /// Exchanges the viewer acknowledged, over all connections.
    private(set) var acknowledged = 0
    /// Exchanges accepted into the buffer, over the link's life.
    private(set) var accepted = 0
    /// The drop count the viewer was last told on this connection.
    private var reportedDrops = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a link buffer holds at least one byte")
        self.capacity = capacity
    }

    /// Exchanges waiting to be written.
    var unsent: Int { frames.count - inFlight }
    /// Exchanges waiting to be written or acknowledged.
    var pending: Int { frames.count }

    /// Queues one encoded exchange, dropping the oldest unwritten ones to make room; false when `frame` itself
    /// was dropped.
    @discardableResult
    mutating func append(_ frame: ByteBuffer) -> Bool {
        accepted += 1
        let size = frame.readableBytes
        guard size <= capacity else {
            dropped += 1
            return false
        }
        while bytes + size > capacity, frames.count > inFlight {
            bytes -= frames.remove(at: inFlight).readableBytes
            dropped += 1
        }
        // Everything left is in flight: the viewer is behind by a whole buffer, so the newest waits its turn by
        // being dropped instead of growing memory.
        guard bytes + size <= capacity else {
            dropped += 1
            return false
        }
        frames.append(frame)
        bytes += size
        return true
    }

    /// An exchange that could not be encoded, or is over the frame limit: counted as sent and dropped.
    mutating func countUnsendable() {
        accepted += 1
        dropped += 1
    }

    /// The drop count to report now (the total since start), when the viewer on this connection has not heard it.
    mutating func takeDropReport() -> Int? {
        guard dropped > reportedDrops else { return nil }
        reportedDrops = dropped
        return dropped
    }

    /// Up to `maxBytes` of unwritten frames (at least one when any is waiting), now counted as written.
    mutating func takeUnsent(maxBytes: Int) -> [ByteBuffer] {
        var taken: [ByteBuffer] = []
        var size = 0
        while inFlight < frames.count {
            let next = frames[inFlight]
            if !taken.isEmpty && size + next.readableBytes > maxBytes { break }
            taken.append(next)
            size += next.readableBytes
            inFlight += 1
        }
        return taken
    }

    /// The viewer stored `count` more of the written exchanges; false when it acknowledges more than were written
    /// (a broken peer: the connection is closed).
    mutating func acknowledge(_ count: Int) -> Bool {
        guard count >= 0, count <= inFlight else { return false }
        for _ in 0..<count { bytes -= frames.removeFirst().readableBytes }
        inFlight -= count
        acknowledged += count
        return true
    }

    /// The connection ended: what was written and not acknowledged is written again on the next one, and the next
    /// viewer hears the drop count.
    mutating func connectionLost() {
        inFlight = 0
        reportedDrops = 0
    }
}

/// When to try again after a failed or lost connection: exponential from ``initial`` to ``maximum``, each delay
/// scaled by a random factor in `1 - jitter ... 1` so that many apps do not redial a restarted listener together.
public struct LinkBackoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    /// 0 to 1.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30), jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before try number `failures + 1`, with `unit` a random number in `0..<1`.
    public func delay(afterFailures failures: Int, unit: Double) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let base = min(initial * (1 << exponent), maximum)
        return base * (1 - jitter * min(max(unit, 0), 1))
    }
}

/// At most `limit` lines per `window`; the rest are counted and mentioned with the next line let through.
/// Keeps a flood of hostile connections from flooding the listener's output.
struct RateLimitedLines: Sendable {
    let limit: Int
    let window: Duration
    private var windowStart: ContinuousClock.Instant?
    private var shown = 0
    private(set) var suppressed = 0

    init(limit: Int = 10, window: Duration = .seconds(10)) {
        self.limit = limit
        self.window = window
    }

    /// The line to print for `line` at `now`, or nil when it is one too many for this window.
    mutating func admit(_ line: String, at now: ContinuousClock.Instant) -> String? {
        if let start = windowStart, now - start < window {
            guard shown < limit else {
                suppressed += 1
                return nil
            }
        } else {
            windowStart = now
            shown = 0
        }
        shown += 1
        guard suppressed > 0 else { return line }
        defer { suppressed = 0 }
        return line + " (and \(suppressed) more refused since the last line)"
    }
}
