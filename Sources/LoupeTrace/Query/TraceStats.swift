import Foundation
import Loupe

/// Figures for a group of exchanges (all of them, one operation, or one host): what `loupe stats` prints.
///
/// Durations count finished exchanges only. The one aggregator that works them out is LoupeBoard's
/// `TrafficMetrics`, which the metrics screen (4) feeds too: percentiles from its HdrHistogram (within 1 %), so
/// `loupe stats` and the screen print the same figures.
public struct TraceStats: Sendable, Hashable, Codable {
    /// Which exchanges a row covers.
    public enum Group: Sendable, Hashable, Codable, CustomStringConvertible {
        case all
        case operation(String)
        case host(String)

        public var description: String {
            switch self {
            case .all: "all"
            case .operation(let name): "operation \(name)"
            case .host(let host): "host \(host)"
            }
        }
    }

    public var group: Group
    /// Exchanges in the group.
    public var count: Int
    /// Exchanges whose outcome was not success (the ones `~e` matches).
    public var errorCount: Int
    /// Exchanges that needed more than one attempt.
    public var retriedCount: Int
    /// Median duration in seconds (nil when none finished).
    public var p50: TimeInterval?
    public var p95: TimeInterval?
    public var p99: TimeInterval?
    /// The recorded sizes of the request bodies, summed (whole sizes, not the stored prefixes).
    public var requestBytes: Int
    /// The recorded sizes of the response bodies, summed.
    public var responseBytes: Int
    /// Circuit breaker transitions recorded on these exchanges (`circuit` events).
    public var breakerTransitions: Int

    public init(group: Group, count: Int, errorCount: Int, retriedCount: Int, p50: TimeInterval?, p95: TimeInterval?,
                p99: TimeInterval?, requestBytes: Int, responseBytes: Int, breakerTransitions: Int) {
        self.group = group
        self.count = count
        self.errorCount = errorCount
        self.retriedCount = retriedCount
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.breakerTransitions = breakerTransitions
    }

    /// Errors per exchange, 0…1.
    public var errorRate: Double { count == 0 ? 0 : Double(errorCount) / Double(count) }
    /// Exchanges retried per exchange, 0…1.
    public var retryRate: Double { count == 0 ? 0 : Double(retriedCount) / Double(count) }
}
