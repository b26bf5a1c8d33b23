import Benchmark
import Foundation
import LoupeTUI

/// Key → frame for movement, paging, the ends and the detail: one op is one key, from the moment it is queued
/// to the moment the loop has drawn the frame it causes.
func registerKeyBenchmarks() {
    let middle = "in the middle"
    keyBenchmark("j", .char("j"), from: middle)
    keyBenchmark("k", .char("k"), from: middle)
    keyBenchmark("PgDn", .pageDown, from: middle)
    keyBenchmark("PgUp", .pageUp, from: middle)
    keyBenchmark("PgDn", .pageDown, from: "at the top", preparing: "g")
    keyBenchmark("PgUp", .pageUp, from: "at the bottom", preparing: "G")
    keyBenchmark("g", "g", from: "at the bottom", preparing: "G")
    keyBenchmark("G", "G", from: "at the top", preparing: "g")
    keyBenchmark("Enter (open the detail)", .enter, from: middle, preparing: .escape)
    keyBenchmark("Esc (back to the list)", .escape, from: middle, preparing: .enter)
}

/// `TUI 1M: KEY (WHERE)`: each op presses `preparing` first (outside the measurement, when given), then
/// `key`, measured. The TUI starts in the middle of the store: `:search` for the exchange halfway.
func keyBenchmark(_ name: String, _ key: Key, from place: String, preparing: Key? = nil) {
    let inspector = Lazy { try middleTUI() }
    Benchmark("TUI \(TUIBenchmarkStore.label): \(name) (\(place))", configuration: keyConfiguration) { benchmark in
        measure(benchmark, inspector) { inspector in
            if let preparing { try inspector.press(preparing) }
            benchmark.startMeasurement()
            try inspector.press(key)
            benchmark.stopMeasurement()
        }
    }
}

/// A TUI at 120×40 whose selection is the exchange halfway through the store (sequence count / 2, whose
/// URL ends in `/SEQUENCE?page=…`), found with the `:search` command, in time order.
func middleTUI() throws -> DrivenTUI {
    let inspector = DrivenTUI(path: try TUIBenchmarkStore.path())
    _ = try inspector.waitForFirstFrame()
    let sequence = TUIBenchmarkStore.count / 2
    try inspector.press(":")
    try inspector.type("search /\(sequence)?")
    let frame = try inspector.press(.enter)
    guard let rank = rank(in: frame), rank == sequence else {
        throw DriveFailure("the search did not select exchange \(sequence); the screen showed:\n\(frame)")
    }
    return inspector
}
