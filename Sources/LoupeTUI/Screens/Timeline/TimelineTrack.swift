import Foundation
import Loupe
import LoupeTrace

/// What the timeline draws of one exchange: its attempts as segments coloured by their outcome, the backoff gaps
/// between them, and marks where an attempt failed without a response or the breaker refused the call. Read
/// from the exchange's attempts and events, the same records the detail shows.
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
}
