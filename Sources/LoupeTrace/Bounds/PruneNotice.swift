import Foundation
import Loupe

/// What prunes removed from a store, kept in the store until the next exchange written reports it as a
/// `store-prune` event, so a gap in a recording always says where its exchanges went.
///
/// Several prunes before the next write merge into one notice: their counts and bytes add up, their reasons
/// join, and the bounds are those of the latest.
public struct PruneNotice: Sendable, Hashable, Codable {
    /// The kind of the ``TraceEvent`` that reports a notice on an exchange.
    public static let eventKind: ExchangeEventKind = "store-prune"

    /// Exchanges removed.
    public var removedCount: Int
    /// Their recorded bytes (``TraceExchange/storedByteCount``).
    public var removedBytes: Int
    /// The bounds they exceeded, in the order applied.
    public var reasons: [PruneResult.Reason]
    /// The bounds applied by the latest prune.
    public var bounds: TraceStoreBounds
    /// When the first and the latest of the merged prunes ran.
    public var firstAt: Date
    public var lastAt: Date
    /// How many prunes this notice merges.
    public var prunes: Int
    /// Whether every merged prune was a writer keeping the store within its own bounds (rather than `loupe prune`
    /// or ``SQLiteTraceStore/prune(_:now:dryRun:)``).
    public var isAutomatic: Bool

    public init(_ result: PruneResult, bounds: TraceStoreBounds, at moment: Date, isAutomatic: Bool) {
        removedCount = result.removedCount
        removedBytes = result.removedBytes
        reasons = result.reasons
        self.bounds = bounds
        firstAt = moment
        lastAt = moment
        prunes = 1
        self.isAutomatic = isAutomatic
    }

    /// This notice followed by `later`.
    public func merged(with later: PruneNotice) -> PruneNotice {
        var merged = later
        merged.removedCount += removedCount
        merged.removedBytes += removedBytes
        merged.reasons = PruneResult.Reason.allCases.filter { reasons.contains($0) || later.reasons.contains($0) }
        merged.firstAt = min(firstAt, later.firstAt)
        merged.prunes += prunes
        merged.isAutomatic = isAutomatic && later.isAutomatic
        return merged
    }

    /// "395,952 exchanges (96.1 MiB): older than 14 days, over 256 MiB".
    public var summary: String {
        amount + (reasons.isEmpty ? "" : ": " + why)
    }

    /// "395,952 exchanges (96.1 MiB)".
    public var amount: String {
        "\(Quantity.count(removedCount, "exchange")) (\(Quantity.bytes(removedBytes)))"
    }

    /// "older than 14 days, over 256 MiB".
    public var why: String {
        reasons.map { bounds.describe($0) }.joined(separator: ", ")
    }

    /// The event reporting this notice on `exchange` (timed at its start, so timelines keep their scale; the
    /// prune times are attributes).
    func event(on exchange: TraceExchange) -> TraceEvent {
        let formatter = ISO8601DateFormatter()
        let who = isAutomatic ? "The store removed" : "A prune removed"
        return TraceEvent(
            kind: Self.eventKind, at: exchange.startedAt,
            message: "\(who) the oldest \(amount) before this exchange was stored: \(why) (the store's bounds: \(bounds)).",
            attributes: [
                "removed": String(removedCount), "removedBytes": String(removedBytes),
                "reasons": reasons.map(\.rawValue).joined(separator: ","), "prunes": String(prunes),
                "firstAt": formatter.string(from: firstAt), "lastAt": formatter.string(from: lastAt),
                "automatic": String(isAutomatic),
            ])
    }
}

extension TraceStoreBounds: CustomStringConvertible {
    /// "256 MiB, 14 days, any number of exchanges" (or "no limits").
    public var description: String {
        guard self != .unlimited else { return "no limits" }
        return [
            maxBytes.map { Quantity.bytes($0) } ?? "any size",
            maxAge.map { "\(Self.daysText($0)) days" } ?? "any age",
            maxCount.map { "at most \($0) exchanges" } ?? "any number of exchanges",
        ].joined(separator: ", ")
    }

    /// Why `reason` removed exchanges under these bounds: "older than 14 days".
    public func describe(_ reason: PruneResult.Reason) -> String {
        switch reason {
        case .age: "older than \(maxAge.map(Self.daysText) ?? "?") days"
        case .count: "over \(maxCount ?? 0) exchanges"
        case .bytes: "over \(Quantity.bytes(maxBytes ?? 0))"
        }
    }

    static func daysText(_ seconds: TimeInterval) -> String {
        String(format: "%g", seconds / 86_400)
    }
}
