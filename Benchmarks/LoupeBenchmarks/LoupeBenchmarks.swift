import Benchmark

// The entry point package-benchmark looks for. Each file registers one group; a baseline and what it is compared
// with always live in the same group, so a single run yields both and the ratio can be quoted.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .cpuTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )
    registerClientBenchmarks()
    registerLoopbackBenchmarks()
    registerRecorderBenchmarks()
    registerObserverBenchmarks()
    registerBigStoreBenchmarks()
}
