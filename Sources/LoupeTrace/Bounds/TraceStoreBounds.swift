import Foundation

/// How much a trace store keeps: at most so many exchanges, so many bytes, and nothing older than an age.
///
/// The defaults follow Pulse: 256 MB (MiB) and 14 days, no count limit. Bytes are what the exchanges count for
/// (``TraceExchange/storedByteCount``: their data plus an allowance for columns and indexes), an estimate from
/// below of the file they need; the file keeps freed pages for reuse unless vacuumed. Age counts from when an exchange was written to the store, so an imported
/// old HAR is not discarded at once. The cap on each body stays with the recorder
/// (``NetworkTraceInspector/Configuration/bodyCap``, 1 MiB).
///
/// Pruning always removes the oldest exchanges first (by sequence), with their attempts and events.
public struct TraceStoreBounds: Sendable, Hashable, Codable {
    /// Keep at most this many exchanges (`nil`: no limit).
    public var maxCount: Int?
    /// Keep at most this many bytes of recorded data (`nil`: no limit).
    public var maxBytes: Int?
    /// Remove exchanges stored longer ago than this many seconds (`nil`: no limit).
    public var maxAge: TimeInterval?

    public init(maxCount: Int? = nil, maxBytes: Int? = Self.defaultMaxBytes, maxAge: TimeInterval? = Self.defaultMaxAge) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.maxAge = maxAge
    }

    /// 256 MiB.
    public static let defaultMaxBytes = 256 * 1_048_576
    /// 14 days.
    public static let defaultMaxAge: TimeInterval = 14 * 24 * 60 * 60
    /// 256 MiB, 14 days, any number of exchanges.
    public static let `default` = Self()
    /// No limits: pruning removes nothing.
    public static let unlimited = Self(maxCount: nil, maxBytes: nil, maxAge: nil)
}

/// What a prune removed (or, in a dry run, would remove) and what stays.
public struct PruneResult: Sendable, Hashable, Codable {
    /// Which bound made exchanges go.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        case age, count, bytes
    }

    public var removedCount: Int
    /// Recorded bytes of the removed exchanges.
    public var removedBytes: Int
    public var remainingCount: Int
    public var remainingBytes: Int
    /// The bounds that were exceeded, in the order they were applied (age, count, bytes).
    public var reasons: [Reason]
    /// Whether nothing was actually removed because this was a dry run.
    public var isDryRun: Bool

    public init(removedCount: Int, removedBytes: Int, remainingCount: Int, remainingBytes: Int, reasons: [Reason],
                isDryRun: Bool) {
        self.removedCount = removedCount
        self.removedBytes = removedBytes
        self.remainingCount = remainingCount
        self.remainingBytes = remainingBytes
        self.reasons = reasons
        self.isDryRun = isDryRun
    }
}
