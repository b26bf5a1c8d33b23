import Foundation
import Loupe
import LoupeTrace

/// Per operation and per host (and for all): request rate, error, retry and budget-denial counts, latency
/// percentiles over a ``MetricsWindow``, fed one exchange at a time as the store grows.
///
/// Memory is bounded by the groups, not the exchanges: per group the totals, one histogram for all time, and
/// the slots of the last hour (each slot's histogram, about 13 KB, made only when something lands in it). Fed with
/// the time it is read at (`now`), exchanges too old for any window ending then or later fill no slot: a store
/// whose traffic is hours old would otherwise fill every slot of every group (about 2 MB a group) for nothing.
public struct TrafficMetrics: Sendable {
    private struct GroupState: Sendable {
        var total = MetricsCounts()
        var latency = LatencyHistogram()
        /// The group's streams for all time, once one is added.
        var streams: StreamFigures?
        var first: Date?
        var last: Date?
        var fine = MetricsSlots(width: MetricsSlots.fine, count: 90)
        var coarse = MetricsSlots(width: MetricsSlots.coarse, count: 60)
        /// ``TrafficMetrics/percents`` of `latency` as last worked out, and its count then.
        var allTime: (count: Int, values: [TimeInterval?])?

        mutating func add(_ facts: ExchangeFacts, age: TimeInterval?) {
            total.add(facts)
            if let duration = facts.duration { latency.record(duration) }
            if let stream = facts.stream { streams.include(stream) }
            first = min(first ?? facts.startedAt, facts.startedAt)
            last = max(last ?? facts.startedAt, facts.startedAt)
            if age.map({ $0 <= fine.span }) ?? true { fine.add(facts) }
            if age.map({ $0 <= coarse.span }) ?? true { coarse.add(facts) }
        }
    }

    private var groups: [TraceStats.Group: GroupState] = [:]
    /// The largest sequence added, so a reader knows where to continue.
    public private(set) var lastSequence: Int64 = .min

    public init() {}

    /// Time slots holding something, over every group (what the memory grows with).
    package var filledSlots: Int { groups.values.reduce(0) { $0 + $1.fine.filled + $1.coarse.filled } }

    /// Adds one exchange to its operation, its host and all.
    /// - Parameter now: The time it is read at, which windows will end at or after: an exchange older than every
    ///   window then fills no time slot (it still counts for all time). `nil` keeps every exchange in the slots.
    public mutating func add(_ exchange: TraceExchange, now: Date? = nil) {
        let facts = ExchangeFacts(exchange)
        let age = now.map { $0.timeIntervalSince(facts.startedAt) }.flatMap { $0.isFinite ? $0 : nil }
        for group in [TraceStats.Group.all, .operation(facts.operation), .host(facts.host)] {
            groups[group, default: GroupState()].add(facts, age: age)
        }
        if let sequence = exchange.sequence { lastSequence = Swift.max(lastSequence, sequence) }
    }

    /// The percentiles a row shows: p50, p95, p99 and the largest.
    static let percents: [Double] = [50, 95, 99, 100]

    /// ``rows(window:now:)``, keeping each group's all-time percentiles until it gets something new: the `all`
    /// window would otherwise walk every group's histogram each time, most of them unchanged (groups of old traffic).
    public mutating func tabulate(window: MetricsWindow, now: Date) -> [MetricsRow] {
        if window.seconds == nil {
            for (group, state) in groups where state.allTime?.count != state.latency.count {
                groups[group]?.allTime = (state.latency.count, state.latency.percentiles(Self.percents))
            }
        }
        return rows(window: window, now: now)
    }

    /// The rows over `window` ending `now`: all first, then operations, then hosts, each by name; groups with
    /// nothing in the window are left out (all is left out only when nothing was ever added).
    public func rows(window: MetricsWindow, now: Date) -> [MetricsRow] {
        let rows = groups.compactMap { group, state in row(group, state, window: window, now: now) }
        return rows.sorted { Self.order($0.group) < Self.order($1.group) }
    }

    private static func order(_ group: TraceStats.Group) -> String {
        switch group {
        case .all: "0"
        case .operation(let name): "1" + name
        case .host(let name): "2" + name
        }
    }

    /// The time a window's figures cover: from the window's start, or the first exchange recorded when that is
    /// later (a recording 15 s old is not 5 minutes of traffic), to `now`, and at least a second (the first
    /// exchange alone is not an infinite rate). Every group shares the recording's start, so a rare operation's
    /// rate is not inflated by its own late first exchange.
    private func coveredSeconds(window seconds: Int, ring: MetricsSlots, now: Date) -> Double {
        let windowStart = Double(ring.number(of: now) + 1) * Double(ring.width) - Double(seconds)
        let recordingStart = groups[.all]?.first?.timeIntervalSince1970 ?? windowStart
        let covered = now.timeIntervalSince1970 - Swift.max(windowStart, recordingStart)
        return covered.isFinite ? Swift.max(covered, 1) : Double(seconds)
    }

    private func row(_ group: TraceStats.Group, _ state: GroupState, window: MetricsWindow, now: Date) -> MetricsRow? {
        let slots: [MetricsSlots.Slot?]
        var counts: MetricsCounts
        var latency: LatencyHistogram
        var streams: StreamFigures?
        let rate: Double
        if let seconds = window.seconds {
            let ring = window.slotSeconds == MetricsSlots.fine ? state.fine : state.coarse
            slots = ring.last(seconds / ring.width, now: now)
            let filled = slots.compactMap { $0 }
            counts = MetricsCounts()
            filled.forEach { counts.add($0.counts) }
            guard counts.requests > 0 || group == .all else { return nil }
            // The first slot's histogram copied, then the others added: a new histogram costs more than a copy.
            latency = filled.first?.latency ?? LatencyHistogram()
            filled.dropFirst().forEach { latency.add($0.latency) }
            for slot in filled { if let figures = slot.streams { streams.include(figures) } }
            rate = Double(counts.requests) / coveredSeconds(window: seconds, ring: ring, now: now)
        } else {
            slots = state.coarse.last(60, now: now)
            counts = state.total
            latency = state.latency
            streams = state.streams
            let span = (state.last ?? now).timeIntervalSince(state.first ?? now)
            rate = span > 0 ? Double(counts.requests) / span : 0
        }
        let width = Double(window.seconds == nil ? MetricsSlots.coarse : window.slotSeconds)
        let kept = window.seconds == nil ? state.allTime.flatMap { $0.count == latency.count ? $0.values : nil } : nil
        let percentiles = kept ?? latency.percentiles(Self.percents)
        return MetricsRow(
            group: group, counts: counts, rate: rate, p50: percentiles[0], p95: percentiles[1],
            p99: percentiles[2], max: percentiles[3],
            rateSeries: slots.map { Double($0?.counts.requests ?? 0) / width },
            p95Series: slots.map { $0?.p95 }, latency: latency, streams: streams)
    }
}
