import Benchmark
import Foundation
import LoupeTUI

/// An indexed filter change: `f`, `~c 503` typed (outside the measurement), then Enter, measured: the filter is
/// parsed and applied in SQL to the whole store (4 % of the synthetic rows are 503s, found through
/// `exchange_status`). Each op then clears the filter (`f`, Ctrl-U, Enter), timed as the custom metric, and goes
/// back to the exchange halfway (`n`: the `:search` that put it there), so every op starts from the middle.
func registerFilterBenchmarks() {
    let inspector = Lazy { try middleTUI() }
    let cleared = BenchmarkMetric.custom("filter cleared → frame (µs)", useScalingFactor: false)
    Benchmark("TUI \(TUIBenchmarkStore.label): filter ~c 503 applied (Enter, from the middle)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, cleared],
                                   timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
                                   maxDuration: .seconds(60), maxIterations: 40)) { benchmark in
        measure(benchmark, inspector) { inspector in
            try inspector.press("f")
            try inspector.type("~c 503")
            benchmark.startMeasurement()
            let frame = try inspector.press(.enter)
            benchmark.stopMeasurement()
            guard frame.contains("~c 503"), !frame.contains(" / \(TUIBenchmarkStore.grouped)") else {
                throw DriveFailure("the filter did not apply:\n\(frame)")
            }
            try inspector.press("f")
            try inspector.press(.ctrl("u"))
            let began = ContinuousClock.now
            try inspector.press(.enter)
            benchmark.measurement(cleared, microseconds(ContinuousClock.now - began))
            let back = try inspector.press("n")
            guard rank(in: back) == TUIBenchmarkStore.count / 2 else { throw DriveFailure("n did not go back:\n\(back)") }
        }
    }
}
