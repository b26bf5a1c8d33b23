import Foundation
import Loupe
import LoupeTrace

/// The Timing tab's model: each attempt's phases and the backoff before it, as seconds on one axis that starts
/// with the exchange.
///
/// Recorded times are not trusted: an instant that is not finite is unknown, one before the exchange's start or
/// before the attempt's previous milestone (clocks that disagree) is moved up to it and the attempt is marked,
/// and everything is kept within ``TraceTime/maxDuration`` so the axis stays a finite number.
struct TimingWaterfall {
    enum Phase: CaseIterable {
        /// Start to request sent.
        case send
        /// Request sent (or start) to the first byte, or to the end when no byte came.
        case wait
        /// First byte to the end.
        case receive
        /// An attempt whose transport marked no milestone.
        case untimed
    }

    enum Mark: CaseIterable {
        case error, shortCircuit, unfinished, badClock
    }

    struct Segment {
        var phase: Phase
        var from: Double
        var to: Double
    }

    struct Row {
        var number: Int
        /// `503`, `ERR`, `SKIP` or `—`, and its style.
        var result: StyledLine.Span
        var start: Double
        var end: Double
        var segments: [Segment]
        /// Where the previous attempt ended, when that was before this one started: the backoff.
        var gapFrom: Double?
        var marks: [Mark]
    }

    let rows: [Row]
    /// The axis' length in seconds: the latest instant drawn.
    let total: Double
    /// The time between attempts, summed.
    let backoff: Double

    init(exchange: TraceExchange) {
        let clock = RelativeClock(origin: exchange.startedAt)
        let exchangeEnd = clock.offset(exchange.endedAt).value
        // The last attempt, when unfinished, is drawn up to the latest instant the recording knows.
        var horizon = exchangeEnd ?? 0
        for attempt in exchange.attempts {
            for date in [attempt.startedAt, attempt.requestSentAt, attempt.firstByteAt, attempt.endedAt] {
                horizon = max(horizon, clock.offset(date).value ?? 0)
            }
        }
        var rows: [Row] = []
        var backoff = 0.0
        for (index, attempt) in exchange.attempts.enumerated() {
            let isLast = index == exchange.attempts.count - 1
            var row = Self.row(attempt, clock: clock, horizon: isLast ? horizon : 0,
                               shortCircuited: Self.isShortCircuit(attempt, isLast: isLast, outcome: exchange.outcome))
            if let previous = rows.last, previous.end < row.start {
                row.gapFrom = previous.end
                backoff += row.start - previous.end
            }
            rows.append(row)
        }
        self.rows = rows
        self.total = rows.reduce(horizon) { max($0, $1.end) }
        self.backoff = backoff
    }

    private static func row(_ attempt: TraceAttempt, clock: RelativeClock, horizon: Double, shortCircuited: Bool) -> Row {
        var badClock = false
        let start = clock.offset(attempt.startedAt)
        badClock = badClock || start.skewed
        var cursor = start.value ?? 0
        let startValue = cursor
        // Each milestone is taken no earlier than the one before it.
        func milestone(_ date: Date?) -> Double? {
            guard let date else { return nil }
            let offset = clock.offset(date)
            badClock = badClock || offset.skewed
            guard let value = offset.value else { return nil }
            if value < cursor { badClock = true }
            cursor = max(cursor, value)
            return cursor
        }
        let sent = milestone(attempt.requestSentAt)
        let firstByte = milestone(attempt.firstByteAt)
        let ended = milestone(attempt.endedAt)
        let unfinished = attempt.endedAt == nil
        let end = ended ?? (unfinished ? max(cursor, horizon) : cursor)

        var segments: [Segment] = []
        var from = startValue
        if let sent {
            segments.append(Segment(phase: .send, from: from, to: sent))
            from = sent
        }
        if let firstByte {
            segments.append(Segment(phase: .wait, from: from, to: firstByte))
            from = firstByte
        }
        let last: Phase = firstByte != nil ? .receive : sent != nil ? .wait : .untimed
        segments.append(Segment(phase: last, from: from, to: end))

        let result: StyledLine.Span = if let status = attempt.status {
            .init(String(status), StatusStyle.style(for: status))
        } else if shortCircuited {
            .init(ExchangeOutcome.shortCircuited.code, .error)
        } else if attempt.error != nil {
            .init("ERR", .error)
        } else {
            .init("—", .dim)
        }
        var marks: [Mark] = []
        if shortCircuited { marks.append(.shortCircuit) } else if attempt.error != nil { marks.append(.error) }
        if unfinished { marks.append(.unfinished) }
        if badClock { marks.append(.badClock) }
        return Row(number: attempt.number, result: result, start: startValue, end: end, segments: segments,
                   gapFrom: nil, marks: marks)
    }

    /// Whether the breaker failed this attempt without sending it: the breaker's state says so, or it failed
    /// before anything was sent with the breaker's error, or it is the last try of a short-circuited exchange.
    static func isShortCircuit(_ attempt: TraceAttempt, isLast: Bool, outcome: ExchangeOutcome) -> Bool {
        if attempt.circuitState == CircuitState.open.rawValue || attempt.circuitState == CircuitState.forcedOpen.rawValue {
            return true
        }
        guard attempt.status == nil, attempt.requestSentAt == nil else { return false }
        return attempt.error?.lowercased().hasPrefix("circuit ") == true || (isLast && outcome == .shortCircuited)
    }
}

/// Seconds since the exchange started, kept to what can be drawn.
private struct RelativeClock {
    var origin: Date

    /// The offset of `date` within `0...TraceTime.maxDuration` (nil when unknown or not finite), and whether it
    /// had to be moved there.
    func offset(_ date: Date?) -> (value: Double?, skewed: Bool) {
        guard let date else { return (nil, false) }
        let seconds = date.timeIntervalSince(origin)
        guard seconds.isFinite else { return (nil, true) }
        let clamped = min(max(seconds, 0), TraceTime.maxDuration)
        return (clamped, clamped != seconds)
    }
}
