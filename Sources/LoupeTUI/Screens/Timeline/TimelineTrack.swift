import Foundation
import Loupe
import LoupeTrace

/// What the timeline draws of one exchange: its attempts as segments coloured by their outcome, the backoff gaps
/// between them, marks where an attempt failed without a response or the breaker refused the call, and a stream's
/// messages as ticks. Read from the exchange's attempts, events and messages, the same records the detail shows.
struct TimelineTrack: Hashable, Sendable {
    struct Segment: Hashable, Sendable {
        var from: Date
        /// `nil` while the attempt is in flight: drawn up to now.
        var to: Date?
        var style: Style
    }

    enum Mark: Hashable, Sendable {
        /// An attempt ended in an error without a response.
        case error
        /// The breaker refused the call.
        case shortCircuit

        var character: Character { self == .error ? "✕" : "⊘" }
        var style: Style { self == .error ? .error : .statusClientError }
    }

    struct Gap: Hashable, Sendable {
        var from: Date
        var to: Date
    }

    struct PlacedMark: Hashable, Sendable {
        var at: Date
        var mark: Mark
    }

    var segments: [Segment] = []
    /// Backoff waits: from an attempt's end to the next one's start.
    var gaps: [Gap] = []
    var marks: [PlacedMark] = []
    /// A stream's kept messages' times, sent and received apart, each in time order: the ticks on its bar. Kept
    /// sorted so a cell asks "any message in here?" by binary search, whatever the stream's length.
    var sent: [Date] = []
    var received: [Date] = []

    init(_ exchange: TraceExchange) {
        let attempts = exchange.attempts.sorted { $0.startedAt < $1.startedAt }
        var previousEnd: Date?
        for attempt in attempts {
            if let previousEnd, attempt.startedAt > previousEnd { gaps.append(Gap(from: previousEnd, to: attempt.startedAt)) }
            segments.append(Segment(from: attempt.startedAt, to: attempt.endedAt, style: Self.style(attempt)))
            if attempt.status == nil, attempt.error != nil { marks.append(PlacedMark(at: attempt.endedAt ?? attempt.startedAt, mark: .error)) }
            previousEnd = attempt.endedAt ?? previousEnd
        }
        let refusals = exchange.events.filter { $0.kind == .shortCircuit }.map(\.at)
        marks += refusals.map { PlacedMark(at: $0, mark: .shortCircuit) }
        if refusals.isEmpty, exchange.outcome == .shortCircuited { marks.append(PlacedMark(at: exchange.startedAt, mark: .shortCircuit)) }
        if let stream = exchange.stream {
            sent = stream.messages.lazy.filter { $0.direction == .sent }.map(\.at).sorted()
            received = stream.messages.lazy.filter { $0.direction == .received }.map(\.at).sorted()
        }
        if attempts.isEmpty, exchange.outcome != .shortCircuited {
            // Recorded without attempts (imported, say): the exchange as one segment.
            segments.append(Segment(from: exchange.startedAt, to: exchange.endedAt, style: Self.style(exchange.summary)))
        }
    }

    static func style(_ attempt: TraceAttempt) -> Style {
        if let status = attempt.status { return StatusStyle.style(for: status) }
        if attempt.endedAt == nil { return .dim }
        return .error
    }

    static func style(_ summary: TraceSummary) -> Style {
        StatusStyle.cell(for: summary).style
    }

    /// The tick for the time range `from..<to`: `↑` when only sent messages fall in it, `↓` only received, `↕`
    /// both, nil none. Two binary searches, so a cell costs the same for 10 messages or 100,000.
    func tick(from: Date, to: Date) -> Character? {
        let up = Self.any(sent, from: from, to: to)
        let down = Self.any(received, from: from, to: to)
        switch (up, down) {
        case (true, true): return "↕"
        case (true, false): return "↑"
        case (false, true): return "↓"
        case (false, false): return nil
        }
    }

    var hasMessages: Bool { !sent.isEmpty || !received.isEmpty }

    private static func any(_ times: [Date], from: Date, to: Date) -> Bool {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < from { low = middle + 1 } else { high = middle }
        }
        return low < times.count && times[low] < to
    }
}
