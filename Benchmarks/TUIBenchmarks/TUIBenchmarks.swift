import Benchmark
import Foundation
import LoupeTUI
import SyntheticStores

// The TUI's budgets (issue 10 item 7) at 120×40 on a synthetic store of `TUIBenchmarkStore.count` exchanges
// (1,000,000 unless `LOUPE_BENCH_COUNT` says otherwise), and raw-SQL baselines on the same file. A target of its
// own, so each benchmark's process (package-benchmark runs every benchmark in a fresh one) holds the TUI and
// nothing else: its peak RSS is the TUI's.
let benchmarks: @Sendable () -> Void = {
    registerFrameBenchmarks()
    registerKeyBenchmarks()
    registerSortBenchmarks()
    registerFilterBenchmarks()
    registerSQLBaselines()
    registerStreamBenchmarks()
}

enum TUIBenchmarkStore {
    /// How many exchanges the benchmarks' store holds.
    static let count: Int = {
        let requested = ProcessInfo.processInfo.environment["LOUPE_BENCH_COUNT"].flatMap(Int.init) ?? 1_000_000
        return min(max(requested, 1_000), 10_000_000)
    }()

    /// The label in benchmark names: `1M`, `10k`.
    static let label: String = count % 1_000_000 == 0 ? "\(count / 1_000_000)M"
        : count % 1_000 == 0 ? "\(count / 1_000)k" : "\(count)"

    /// The cached synthetic store's path, made first when missing (about 25 s for a million).
    static func path() throws -> String {
        try SyntheticStoreCache.ensure(count: count)
    }

    /// The total as the position text shows it (`1,000,000`).
    static var grouped: String {
        String(count).reversed().enumerated().reduce(into: "") { text, pair in
            if pair.offset > 0, pair.offset % 3 == 0 { text.append(",") }
            text.append(pair.element)
        }.reversed().map(String.init).joined()
    }
}

/// One key press → frame, the common configuration: one op is one key (or one sequence the benchmark names).
var keyConfiguration: Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 400
    )
}

/// A value filled in on the first iteration (outside the measurement) and kept for the process: the TUI
/// positioned for the benchmark, or the baselines' connection.
final class Lazy<Value> {
    private var value: Value?
    private let make: () throws -> Value
    init(_ make: @escaping () throws -> Value) { self.make = make }

    func get() throws -> Value {
        if let value { return value }
        let made = try make()
        value = made
        return made
    }
}

/// Runs `body` with the benchmark's value, reporting a thrown error as the benchmark's failure.
func measure<Value>(_ benchmark: Benchmark, _ lazy: Lazy<Value>, _ body: (Value) throws -> Void) {
    do {
        try body(try lazy.get())
    } catch {
        benchmark.error("\(error)")
    }
}

/// The position text's rank (`12,345 / 1,000,000` → 12345), from the status line of `frame`.
func rank(in frame: String) -> Int? {
    guard let line = frame.split(separator: "\n").last(where: { $0.contains(" / \(TUIBenchmarkStore.grouped)") }),
          let slash = line.range(of: " / \(TUIBenchmarkStore.grouped)") else { return nil }
    let digits = line[..<slash.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed()
    return Int(String(digits).replacingOccurrences(of: ",", with: ""))
}
