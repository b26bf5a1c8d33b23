import Foundation
import LoupeTrace

/// Requests and failures per second over the last two minutes (Hystrix's sparkline), in a ring of 120 seconds.
public struct SecondBuckets: Sendable, Hashable {
    /// How many seconds the ring spans.
    public static let span = 120
    private var seconds = [Int64](repeating: .min, count: span)
    private var requests = [Int](repeating: 0, count: span)
    private var failures = [Int](repeating: 0, count: span)

    public init() {}

    /// Counts one request at `date` (and a failure when `failed`); older than the ring holds is dropped.
    public mutating func add(at date: Date, failed: Bool) {
        let time = date.timeIntervalSince1970
        guard time.isFinite else { return }
        let second = Int64(time.rounded(.down).clamped(to: -9e15...9e15))
        let index = Int(((second % Int64(Self.span)) + Int64(Self.span)) % Int64(Self.span))
        if seconds[index] > second { return }
        if seconds[index] != second {
            seconds[index] = second
            requests[index] = 0
            failures[index] = 0
        }
        requests[index] += 1
        if failed { failures[index] += 1 }
    }

    /// The last 120 seconds up to `now`, oldest first: (requests, failures) per second.
    public func series(now: Date) -> [(requests: Int, failures: Int)] {
        let time = now.timeIntervalSince1970
        let newest = time.isFinite ? Int64(time.rounded(.down).clamped(to: -9e15...9e15)) : 0
        return (0..<Self.span).reversed().map { back in
            let wanted = newest - Int64(back)
            let index = Int(((wanted % Int64(Self.span)) + Int64(Self.span)) % Int64(Self.span))
            return seconds[index] == wanted ? (requests[index], failures[index]) : (0, 0)
        }
    }
}
