import Benchmark
import Foundation
import LoupeTUI

/// Launch to first frame, and a whole session's peak RSS.
func registerFrameBenchmarks() {
    let path = Lazy { try TUIBenchmarkStore.path() }
    // One op: open the store read-only, make the app (public initializer, standard keys), start its loop, and
    // wait for the first frame, which already holds the rows and the exact `n / total`. The quit is outside.
    Benchmark("TUI \(TUIBenchmarkStore.label): first frame (open + init + poll + draw)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                   timeUnits: .milliseconds, warmupIterations: 1, scalingFactor: .one,
                                   maxDuration: .seconds(10), maxIterations: 40)) { benchmark in
        measure(benchmark, path) { path in
            benchmark.startMeasurement()
            let inspector = DrivenTUI(path: path)
            let frame = try inspector.waitForFirstFrame()
            benchmark.stopMeasurement()
            inspector.quit()
            guard rank(in: frame) != nil else { throw DriveFailure("the first frame shows no position:\n\(frame)") }
        }
    }

    // One op: a whole session, as someone would use it, from launch (and a `:search` to the middle) to quit. Its process's peak RSS (also read
    // from the kernel, VmHWM) is the RSS budget's figure.
    Benchmark("TUI \(TUIBenchmarkStore.label): session tour (peak RSS)",
              configuration: .init(metrics: [.wallClock, .peakMemoryResident, .custom("VmHWM (KB)", useScalingFactor: false)],
                                   timeUnits: .milliseconds, warmupIterations: 0, scalingFactor: .one,
                                   maxDuration: .seconds(30), maxIterations: 5)) { benchmark in
        measure(benchmark, path) { _ in
            let inspector = try middleTUI()
            try tour(inspector)
            inspector.quit()
            if let peak = PeakMemory.kilobytes() { benchmark.measurement(.custom("VmHWM (KB)", useScalingFactor: false), peak) }
        }
    }
}

/// Every key the budgets name, a few times each: movement, paging, ends, every sort, reverse, a filter and its
/// clearing, the detail of one exchange and back.
func tour(_ inspector: DrivenTUI) throws {
    try inspector.press("g")
    for _ in 0..<20 { try inspector.press("j") }
    for _ in 0..<20 { try inspector.press(.pageDown) }
    try inspector.press("G")
    for _ in 0..<20 { try inspector.press(.pageUp) }
    for _ in 0..<20 { try inspector.press("k") }
    for _ in 0..<6 { try inspector.press("o") }
    try inspector.press("v")
    try inspector.press("v")
    try inspector.press("f")
    try inspector.type("~c 503")
    try inspector.press(.enter)
    for _ in 0..<10 { try inspector.press(.pageDown) }
    try inspector.press(.enter)
    try inspector.press(.tab)
    try inspector.press(.escape)
    try inspector.press("f")
    try inspector.press(.ctrl("u"))
    try inspector.press(.enter)
}

enum PeakMemory {
    /// The process's peak resident set (`VmHWM` in /proc/self/status), in KB.
    static func kilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
