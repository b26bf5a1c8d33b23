import Foundation
import Histogram
import LoupeTrace

/// Latencies of one group in an HdrHistogram: percentiles within 1 % of the true value whatever the distribution,
/// in a fixed ≈ 10 KB, recorded in constant time.
///
/// Values are microseconds from 1 µs to one hour (two significant digits: each value lands in a bucket no wider
/// than 1 % of it); a longer duration counts as one hour. Percentiles are HdrHistogram's: the highest value
/// equivalent to the one at that rank, never above the largest recorded.
public struct LatencyHistogram: Sendable, Equatable {
    /// One hour in microseconds: the top of the range.
    static let highest: UInt64 = 3_600_000_000
    private var histogram = Histogram<UInt32>(
        lowestDiscernibleValue: 1, highestTrackableValue: highest, numberOfSignificantValueDigits: .two)

    /// An empty histogram.
    public init() {}

    /// How many durations it holds.
    public var count: Int { Int(clamping: histogram.totalCount) }

    /// Adds a duration in seconds (negative or non-finite ones count as 0, longer than an hour as an hour).
    public mutating func record(_ seconds: TimeInterval) {
        _ = histogram.record(Self.micros(seconds))
    }

    /// Adds every duration of `other`.
    public mutating func add(_ other: LatencyHistogram) {
        histogram.add(other.histogram)
    }

    /// The `percent`-th percentile in seconds (`nil` when empty); 100 is the largest duration.
    public func percentile(_ percent: Double) -> TimeInterval? {
        percentiles([percent])[0]
    }

    /// Several percentiles in one pass, each the value HdrHistogram's `valueAtPercentile` gives (`nil` when empty).
    ///
    /// Worked out here over `recordedValues()`, which is inlinable and so compiled for this histogram's count type:
    /// `valueAtPercentile` is not, and walks every bucket through generic calls.
    public func percentiles(_ percents: [Double]) -> [TimeInterval?] {
        let total = histogram.totalCount
        guard total > 0 else { return percents.map { _ in nil } }
        let lowest = histogram.min, highest = histogram.maxRecorded
        var values: [UInt64?] = []
        // The rank each percent reaches, as `valueAtPercentile` works it out: one ulp below, rounded up, at least 1.
        var ranks: [(rank: UInt64, index: Int)] = []
        for (index, percent) in percents.enumerated() {
            let percent = Swift.min(Swift.max(percent, 0), 100)
            values.append(percent == 0 ? lowest : percent == 100 ? highest : nil)
            guard percent > 0, percent < 100 else { continue }
            let exact = Swift.min(Swift.max(percent.nextDown, 0), 100) * Double(total) / 100
            ranks.append((Swift.max(1, UInt64(exact.rounded(.up))), index))
        }
        ranks.sort { $0.rank < $1.rank }
        var next = 0, seen: UInt64 = 0
        for bucket in histogram.recordedValues() where next < ranks.count {
            seen += UInt64(bucket.count)
            while next < ranks.count, ranks[next].rank <= seen {
                values[ranks[next].index] = Swift.max(Swift.min(bucket.value, highest), lowest)
                next += 1
            }
        }
        return values.map { $0.map { Double($0) / 1e6 } }
    }

    /// The largest duration recorded, in seconds.
    public var max: TimeInterval? { percentile(100) }

    /// Counts of durations in `bins` equal bins from 0 to ``max`` (for a histogram drawing): the upper edge of
    /// each bin in seconds with its count.
    public func bins(_ bins: Int) -> [(upTo: TimeInterval, count: Int)] {
        guard bins > 0, let top = max, top > 0 else { return [] }
        let width = Swift.max(1, Self.micros(top) / UInt64(bins) + 1)
        var counts = [Int](repeating: 0, count: bins)
        for value in histogram.recordedValues() {
            let index = Swift.min(bins - 1, Int(value.value / width))
            counts[index] += Int(value.count)
        }
        return counts.indices.map { (Double(UInt64($0 + 1) * width) / 1e6, counts[$0]) }
    }

    /// Every recorded bucket, lowest first: its value in seconds (the highest equivalent to it, as percentiles
    /// give) and how many durations it holds. Two histograms bucket alike, so equal values are ties: what a rank
    /// test over two recordings needs.
    package func buckets() -> [(seconds: TimeInterval, count: Int)] {
        let highest = histogram.maxRecorded
        return histogram.recordedValues().map { (Double(Swift.min($0.value, highest)) / 1e6, Int($0.count)) }
    }

    static func micros(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(Swift.min(seconds * 1e6, Double(highest)).rounded())
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.histogram.totalCount == rhs.histogram.totalCount && lhs.histogram.max == rhs.histogram.max
            && lhs.histogram.recordedValues().map(\.count) == rhs.histogram.recordedValues().map(\.count)
    }
}
