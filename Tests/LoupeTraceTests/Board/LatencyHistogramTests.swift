import Foundation
import Testing
@testable import LoupeTrace

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
