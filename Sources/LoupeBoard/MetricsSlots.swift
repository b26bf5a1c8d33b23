import Foundation
import LoupeTrace

/// A ring of time slots (counters and a latency histogram each) covering the last stretch of time: the windows of
/// ``MetricsWindow`` are sums of its newest slots, so nothing is rescanned when the window moves.
struct MetricsSlots: Sendable {
    /// Fine slots (10 s) serve windows up to 15 minutes; coarse ones (1 min) the hour.
    static let fine = 10
    static let coarse = 60

    struct Slot: Sendable {
        /// `floor(epoch seconds / width)`.
        var number: Int64
        var counts = MetricsCounts()
        var latency = LatencyHistogram()
        /// The slot's streams, once one lands in it.
        var streams: StreamFigures?
        /// The slot's p95, worked out once a newer slot began (its sparkline point); `nil` while it may change.
        var settledP95: TimeInterval??

        /// The slot's p95 latency: the settled one, or worked out now for the slot still filling.
        var p95: TimeInterval? { settledP95 ?? latency.percentile(95) }
    }

    let width: Int
    private var slots: [Slot?]
    /// The newest slot number added to: when a newer one begins, this one's p95 is settled.
    private var newest: Int64 = .min

    /// A ring of `count` slots `width` seconds wide.
    init(width: Int, count: Int) {
        self.width = width
        slots = Array(repeating: nil, count: count)
    }

    /// Slots holding something (each with its histogram).
    var filled: Int { slots.count { $0 != nil } }

    /// How far back from now the ring reaches: its slots and the one being filled.
    var span: TimeInterval { Double(width * slots.count + width) }

    func number(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return .min }
        return Int64((seconds / Double(width)).rounded(.down).clamped(to: -9e15...9e15))
    }

    /// Adds one exchange to its slot, unless it is older than the ring holds.
    mutating func add(_ facts: ExchangeFacts) {
        let number = number(of: facts.startedAt)
        if number > newest {
            // Exchanges arrive in about time order: the slot before is complete, so its sparkline point is
            // worked out once here rather than on every tabulation.
            let previous = self.index(of: newest)
            if newest != .min, slots[previous]?.number == newest {
                slots[previous]!.settledP95 = .some(slots[previous]!.latency.percentile(95))
            }
            newest = number
        }
        let index = self.index(of: number)
        if let existing = slots[index], existing.number > number { return }
        if slots[index]?.number != number { slots[index] = Slot(number: number) }
        slots[index]!.counts.add(facts)
        if let stream = facts.stream { slots[index]!.streams.include(stream) }
        if let duration = facts.duration {
            slots[index]!.latency.record(duration)
            // A late exchange in a settled slot: its p95 is worked out again when asked.
            slots[index]!.settledP95 = nil
        }
    }

    private func index(of number: Int64) -> Int {
        Int(((number % Int64(slots.count)) + Int64(slots.count)) % Int64(slots.count))
    }

    /// The `count` newest slots ending with the one holding `now`, oldest first (`nil` for an empty one).
    func last(_ count: Int, now: Date) -> [Slot?] {
        let newest = number(of: now)
        let count = min(count, slots.count)
        return (0..<count).reversed().map { back in
            let wanted = newest - Int64(back)
            let index = Int(((wanted % Int64(slots.count)) + Int64(slots.count)) % Int64(slots.count))
            return slots[index].flatMap { $0.number == wanted ? $0 : nil }
        }
    }
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
