import Foundation
import Loupe

/// Figures for a group of exchanges (all of them, one operation, or one host): what `loupe stats` prints.
///
/// Durations count finished exchanges only. Percentiles use the nearest-rank method: sort the n durations, and
/// the p-th percentile is the ⌈p·n/100⌉-th smallest; it is always a duration that really occurred (the p50 of
/// 10, 20, 30, 40 is 20; its p99 is 40).
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

    /// The nearest-rank `percent`-th percentile of `sorted` (ascending): its ⌈percent·n/100⌉-th element.
    public static func nearestRank(_ percent: Int, of sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let percent = min(max(percent, 0), 100)
        // Integer arithmetic: ⌈p·n/100⌉ without floating-point surprises such as 0.95 × 20 = 19.000000000000004.
        let rank = max(1, (percent * sorted.count + 99) / 100)
        return sorted[rank - 1]
    }
}

/// Builds ``TraceStats`` one exchange at a time; both stores feed it, so they agree.
package struct TraceStatsAccumulator {
    private struct Partial {
        var count = 0, errors = 0, retried = 0, requestBytes = 0, responseBytes = 0, transitions = 0
        var durations: [Double] = []
    }

    private var all = Partial()
    private var operations: [String: Partial] = [:]
    private var hosts: [String: Partial] = [:]

    package init() {}

    package mutating func add(_ exchange: TraceExchange) {
        add(operation: exchange.operation, host: exchange.host, duration: exchange.duration,
            isError: exchange.outcome != .success, attempts: exchange.attempts.count,
            requestBytes: exchange.requestBody?.size ?? 0, responseBytes: exchange.responseBody?.size ?? 0,
            transitions: exchange.events.count { $0.kind == .circuitTransition })
    }

    /// The event kind that records a breaker transition.
    package static let circuitKind = ExchangeEventKind.circuitTransition.rawValue

    package mutating func add(operation: String, host: String, duration: Double?, isError: Bool, attempts: Int,
                      requestBytes: Int, responseBytes: Int, transitions: Int) {
        // A store may hold any number (a hand-edited or old row): durations are brought into range as rows are
        // read, and the sums saturate rather than trap on overflow.
        let duration = TraceTime.clampedDuration(duration)
        func update(_ partial: inout Partial) {
            partial.count += 1
            if isError { partial.errors += 1 }
            if attempts > 1 { partial.retried += 1 }
            partial.requestBytes = Self.sum(partial.requestBytes, max(0, requestBytes))
            partial.responseBytes = Self.sum(partial.responseBytes, max(0, responseBytes))
            partial.transitions = Self.sum(partial.transitions, transitions)
            if let duration { partial.durations.append(duration) }
        }
        update(&all)
        update(&operations[operation, default: Partial()])
        update(&hosts[host, default: Partial()])
    }

    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    /// The `all` row (only when something was added), then operations, then hosts, each sorted by name.
    package func result() -> [TraceStats] {
        guard all.count > 0 else { return [] }
        return [Self.stats(.all, all)]
            + operations.sorted { $0.key < $1.key }.map { Self.stats(.operation($0.key), $0.value) }
            + hosts.sorted { $0.key < $1.key }.map { Self.stats(.host($0.key), $0.value) }
    }

    private static func stats(_ group: TraceStats.Group, _ partial: Partial) -> TraceStats {
        let sorted = partial.durations.sorted()
        return TraceStats(
            group: group, count: partial.count, errorCount: partial.errors, retriedCount: partial.retried,
            p50: TraceStats.nearestRank(50, of: sorted), p95: TraceStats.nearestRank(95, of: sorted),
            p99: TraceStats.nearestRank(99, of: sorted), requestBytes: partial.requestBytes,
            responseBytes: partial.responseBytes, breakerTransitions: partial.transitions)
    }
}
