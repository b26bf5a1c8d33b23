/// A count a peer sends over the link (exchanges acknowledged, exchanges dropped): the one place such a number is
/// range-checked, when its frame is read, and the one way counts are added up, saturating.
///
/// A peer is not trusted with the listener's arithmetic: a `drops` total near `Int.max` from two apps overflowed the
/// listener's sum and trapped, taking every other app's link with it (issue 44). Counts run from 0 to ``max``;
/// a frame with another number is refused as a bad payload, and a sum of counts stops at `Int.max`.
package struct LinkCount: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The largest count a frame may carry: far more exchanges than one process records.
    package static let max = Int(Int32.max)

    /// The count, in `0...max`.
    package let value: Int

    /// The count, or nil when `value` is negative or over ``max``.
    package init?(_ value: some BinaryInteger) {
        guard value >= 0, value <= Self.max else { return nil }
        self.value = Int(value)
    }

    /// The nearest count to `value` (0 below, ``max`` above): for counts this side keeps, which may run past a
    /// frame's range in a process that lives long enough.
    package init(clamping value: Int) {
        self.value = Swift.min(Swift.max(0, value), Self.max)
    }

    /// A literal count; out of range is a programming error.
    package init(integerLiteral value: Int) {
        precondition(value >= 0 && value <= Self.max, "a LinkCount runs from 0 to \(Self.max)")
        self.value = value
    }

    package var description: String { String(value) }

    package static func < (lhs: LinkCount, rhs: LinkCount) -> Bool { lhs.value < rhs.value }

    /// `total + count`, stopping at `Int.max` instead of trapping: totals over many peers and connections.
    package static func saturating(_ total: Int, adding count: Int) -> Int {
        let (sum, overflow) = total.addingReportingOverflow(count)
        return overflow ? (count < 0 ? Int.min : Int.max) : sum
    }
}
