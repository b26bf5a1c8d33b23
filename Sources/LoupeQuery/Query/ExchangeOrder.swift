import Foundation
import LoupeTrace

/// The order of the exchanges list: a sort key, ascending or descending, with ``TraceSummary/sequence`` breaking ties
/// in the same direction, so every order is total and a page boundary is exact.
///
/// Absent values (`NULL` in the store: an unfinished duration, no status, no body) sort below every present
/// value, as SQLite sorts them: first when ascending, last when descending. That is the order SQLite's indexes
/// hold, so both directions are read straight from an index. Strings compare by their UTF-8 bytes, as SQLite's
/// `BINARY` collation does (not as Swift's `<`, which compares canonically equivalent strings as equal).
public struct ExchangeOrder: Hashable, Sendable {
    /// What to sort by.
    public var key: ExchangeSortKey
    /// Whether larger values come first (ties then newest first).
    public var descending: Bool

    /// - Parameters:
    ///   - key: what to sort by; by default the start time.
    ///   - descending: whether larger values come first.
    public init(_ key: ExchangeSortKey = .time, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    /// The start time, oldest first: the order of arrival, as the list showed it before it could sort.
    public static let oldestFirst = ExchangeOrder(.time)

    /// Whether `a` comes before `b` in this order: the key, then `sequence` in the same direction, with absent
    /// values below present ones. It agrees with the SQLite store's `ORDER BY` for every row it returns.
    public func precedes(_ a: TraceSummary, _ b: TraceSummary) -> Bool {
        let comparison = Self.compareKeys(key, a, b)
        if comparison != 0 { return descending ? comparison > 0 : comparison < 0 }
        return descending ? a.sequence > b.sequence : a.sequence < b.sequence
    }

    /// -1, 0 or 1 as `a`'s key is below, equal to or above `b`'s, in ascending order.
    static func compareKeys(_ key: ExchangeSortKey, _ a: TraceSummary, _ b: TraceSummary) -> Int {
        switch key {
        // The store keeps seconds since 1970 as REAL: compare those, not the `Date`s (whose own seconds count from
        // 2001 and may round differently).
        case .time: compare(a.startedAt.timeIntervalSince1970, b.startedAt.timeIntervalSince1970)
        case .duration: compare(a.duration, b.duration)
        case .status: compare(a.status, b.status)
        case .size: compare(a.responseBodySize, b.responseBodySize)
        case .host: compareBytes(a.host, b.host)
        case .operation: compareBytes(a.operation, b.operation)
        }
    }

    /// Absent below present, as SQLite orders `NULL`.
    static func compare<T: Comparable>(_ a: T?, _ b: T?) -> Int {
        switch (a, b) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case let (a?, b?): a < b ? -1 : b < a ? 1 : 0
        }
    }

    /// SQLite's `BINARY` collation: the UTF-8 bytes compared one by one, a prefix first.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?) where x != y: return x < y ? -1 : 1
            default: continue
            }
        }
    }
}
