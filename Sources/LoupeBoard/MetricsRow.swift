import Foundation
import LoupeTrace

/// One group's figures over a window: what the metrics screen shows in a row and `loupe stats` prints.
public struct MetricsRow: Sendable, Equatable {
    /// Which exchanges (all, one operation, one host), as ``TraceStats/Group`` names them.
    public var group: TraceStats.Group
    public var counts: MetricsCounts
    /// Exchanges per second over the time the window's data covers: from the window's start (or the first exchange
    /// recorded, when later) to now, at least a second; from the first to the last exchange for `all`.
    public var rate: Double
    public var p50: TimeInterval?
    public var p95: TimeInterval?
    public var p99: TimeInterval?
    public var max: TimeInterval?
    /// Per slot of the window, oldest first: exchanges per second.
    public var rateSeries: [Double]
    /// Per slot of the window, oldest first: the slot's p95 (`nil` for a slot without finished exchanges).
    public var p95Series: [TimeInterval?]
    /// Every duration of the window, for the histogram of the selected row.
    public var latency: LatencyHistogram
    /// The window's streams (time to first message, gaps, messages per second); nil when none streamed.
    public var streams: StreamFigures? = nil
}
