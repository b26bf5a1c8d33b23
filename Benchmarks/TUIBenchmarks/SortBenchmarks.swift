import Benchmark
import Foundation
import LoupeTUI

/// A sort change: `o` moves to the next sort key (time → duration → status → size → host → operation → time),
/// `v` reverses. The selected exchange (halfway through the store) stays selected: a press draws the rows in the
/// new order with `… / N`, and the exchange's rank in it is counted in the background (JOURNAL J114), outside the
/// figure; a reversal needs no count. One op is one press; the wall clock mixes the six keys, and a custom metric
/// per key (µs) splits them.
func registerSortBenchmarks() {
    let keys = ["duration", "status", "size", "host", "operation", "time"]
    let inspector = Lazy { try middleTUI() }
    let metrics = keys.map { BenchmarkMetric.custom("o → \($0) (µs)", useScalingFactor: false) }
    var presses = 0
    Benchmark("TUI \(TUIBenchmarkStore.label): o (sort change, in the middle)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident] + metrics,
                                   timeUnits: .microseconds, warmupIterations: 0, scalingFactor: .one,
                                   maxDuration: .seconds(20), maxIterations: 120)) { benchmark in
        measure(benchmark, inspector) { inspector in
            let began = ContinuousClock.now
            benchmark.startMeasurement()
            let frame = try inspector.press("o")
            benchmark.stopMeasurement()
            let elapsed = ContinuousClock.now - began
            let key = keys[presses % keys.count]
            presses += 1
            guard frame.contains("sorted by \(key)") else { throw DriveFailure("expected a sort by \(key):\n\(frame)") }
            benchmark.measurement(metrics[(presses - 1) % keys.count], microseconds(elapsed))
        }
    }
    let reversing = Lazy { try middleTUI() }
    Benchmark("TUI \(TUIBenchmarkStore.label): v (reverse, in the middle)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                   timeUnits: .microseconds, warmupIterations: 0, scalingFactor: .one,
                                   maxDuration: .seconds(20), maxIterations: 120)) { benchmark in
        measure(benchmark, reversing) { inspector in
            benchmark.startMeasurement()
            try inspector.press("v")
            benchmark.stopMeasurement()
        }
    }
}

func microseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
}
