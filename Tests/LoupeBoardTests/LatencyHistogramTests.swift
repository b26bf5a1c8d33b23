import Foundation
import Histogram
import Testing
@testable import LoupeTrace
@testable import LoupeBoard

@Suite struct LatencyHistogramTests {
    @Test("percentiles are HdrHistogram's: the top of the 1 % bucket holding the rank, the max exact")
    func percentiles() throws {
        var histogram = LatencyHistogram()
        for ms in [10.0, 20, 30, 40] { histogram.record(ms / 1000) }
        #expect(histogram.count == 4)
        // 20,000 µs sits in a bucket 128 µs wide starting at 19,968 (156 × 128): its top is 20,095.
        #expect(histogram.percentile(50) == 0.020095)
        #expect(histogram.max == 0.040)
        #expect(histogram.percentile(99) == 0.040)
        #expect(LatencyHistogram().percentile(50) == nil)
    }

    @Test("percentiles worked out in one pass equal HdrHistogram's valueAtPercentile on the same recordings")
    func percentilesAgreeWithHdrHistogram() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            var histogram = LatencyHistogram()
            var reference = Histogram<UInt32>(lowestDiscernibleValue: 1, highestTrackableValue: LatencyHistogram.highest,
                                              numberOfSignificantValueDigits: .two)
            let count = [1, 2, 3, 7, 100, 5_000][round % 6]
            for _ in 0..<count {
                // Log-spread from 0 to minutes, with repeats, so buckets hold many values and ranks fall on edges.
                let seconds = round % 5 == 0 ? 0 : pow(10, Double.random(in: -6...2.5, using: &generator))
                let value = Int.random(in: 0...3, using: &generator) == 0 ? 0.020 : seconds
                histogram.record(value)
                _ = reference.record(LatencyHistogram.micros(value))
            }
            let percents = [0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100, 150, -5]
            let expected = percents.map { Double(reference.valueAtPercentile(min(max($0, 0), 100))) / 1e6 }
            #expect(histogram.percentiles(percents) == expected, "round \(round), \(count) values")
            #expect(percents.map { histogram.percentile($0) } == expected)
        }
    }

    @Test("out-of-range durations are brought into range, not trapped on")
    func extremes() {
        var histogram = LatencyHistogram()
        for value in [-1.0, .nan, .infinity, 1e12] { histogram.record(value) }
        #expect(histogram.count == 4)
        #expect(histogram.max == 3_600)
    }

    @Test("bins split 0…max evenly and hold every duration")
    func bins() {
        var histogram = LatencyHistogram()
        for ms in [1.0, 2, 3, 100] { histogram.record(ms / 1000) }
        let bins = histogram.bins(4)
        #expect(bins.count == 4)
        #expect(bins.map(\.count) == [3, 0, 0, 1])
        #expect(bins.map(\.count).reduce(0, +) == 4)
    }
}
