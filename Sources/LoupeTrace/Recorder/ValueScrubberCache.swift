import Synchronization

/// The scrubbers built for the last few sets of secret values, so consecutive exchanges that carry the same
/// credential (every request of a client with one bearer token) share one automaton instead of building it anew.
///
/// Building derives every encoded form of every value (``SecretForms``) and a trie over them: hundreds of
/// allocations per exchange. Scrubbing with a shared scrubber is read-only (`ValueScrubber` is an immutable
/// value), so one cache serves every writer.
enum ValueScrubberCache {
    /// A set of values as a list of distinct values (``SecretCollector/list``): equal when they hold the same values
    /// in any order. Compared value by value, not hashed as a `Set`: an exchange has two or three.
    private struct Key {
        var values: [String]
        var minimumLength: Int

        func matches(_ values: [String], minimumLength: Int) -> Bool {
            guard self.minimumLength == minimumLength, self.values.count == values.count else { return false }
            // Both lists hold distinct values, so equal counts and one inside the other mean equal sets. In the
            // same order (the usual case: one client's exchanges find them in the same order) that is one pass.
            if self.values == values { return true }
            if values.count > 8 { return Set(self.values) == Set(values) }
            return values.allSatisfy(self.values.contains)
        }
    }

    /// A handful of entries: enough for a client whose token is refreshed mid-run, or a few clients sharing one
    /// recorder; evicted oldest first.
    private static let capacity = 8
    private static let entries = Mutex<[(key: Key, scrubber: ValueScrubber?)]>([])

    /// The scrubber for `values` (distinct values; `nil` when there is nothing to scrub), built at most once per
    /// recent set.
    static func scrubber(values: [String], minimumLength: Int) -> ValueScrubber? {
        guard !values.isEmpty else { return nil }
        if let hit = entries.withLock({ list in list.first { $0.key.matches(values, minimumLength: minimumLength) } }) {
            return hit.scrubber
        }
        let built = ValueScrubber(values: values, minimumLength: minimumLength)
        entries.withLock { list in
            if list.count >= capacity { list.removeFirst() }
            list.append((Key(values: values, minimumLength: minimumLength), built))
        }
        return built
    }
}
