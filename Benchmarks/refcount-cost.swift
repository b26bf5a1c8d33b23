// What one retain and release of a Swift object costs on this machine, against the instructions callgrind counts for
// them (Benchmarks/README.md, "Reference counts"; `callgrind-groups.py --calls` counts them a request).
//
//   swiftc -O refcount-cost.swift -o /tmp/refcount-cost && /tmp/refcount-cost 50000000
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/refcount-cost 1000000   # and at 2000000: the
//   difference / 1,000,000 is the instructions of one pair with its loop and calls
//
// The calls go through non-inlined functions so the optimizer cannot pair the retain with the release and drop
// both. Measured 2026-11-28: 10.4 ns a pair on a quiet machine (15 ns under load), 50 instructions with the loop and
// the calls: about the rate of a loopback request's instructions as a whole (≈ 0.2 ns each, kernel time included),
// so for uncontended counts the instruction figure is a fair judge; contended ones were not measured.
import Foundation

final class Box { var x = 0 }
@inline(never) func retain(_ u: Unmanaged<Box>) { _ = u.retain() }
@inline(never) func release(_ u: Unmanaged<Box>) { u.release() }

@inline(never) func pairs(_ b: Box, _ n: Int) {
    let u = Unmanaged.passUnretained(b)
    for _ in 0..<n { retain(u); release(u) }
}

func nanoseconds(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
}

let n = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 50_000_000
let box = Box()
let pair = Double(nanoseconds { pairs(box, n) }) / Double(n)
print(String(format: "retain + release: %.2f ns a pair", pair))
