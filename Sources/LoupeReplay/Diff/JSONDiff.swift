import LoupeTrace

/// Two JSON bodies compared by structure (``JSONComparison``), as the replay's differences: each at its JSON path.
package enum JSONDiff {
    /// Values longer than this (as compact JSON) are shown cut, ending in `…`.
    package static let valueLimit = JSONComparison.valueLimit

    /// The differences from `old` to `new`, in document order: the original's keys first, then keys only the
    /// replay has.
    package static func differences(_ old: JSONValue, _ new: JSONValue, at path: JSONPath = .root) -> [Difference] {
        JSONComparison.differences(old, new, at: path).map { difference in
            switch difference.change {
            case .changed(let from, let to): Difference(.json(difference.path), .changed(from: from, to: to))
            case .added(let value): Difference(.json(difference.path), .added(value))
            case .removed(let value): Difference(.json(difference.path), .removed(value))
            }
        }
    }
}
