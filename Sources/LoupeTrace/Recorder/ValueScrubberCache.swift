import Synchronization

/// The scrubbers built for the last few sets of secret values, so consecutive exchanges that carry the same
/// credential (every request of a client with one bearer token) share one automaton instead of building it anew.
///
/// Building derives every encoded form of every value (``SecretForms``) and a trie over them: hundreds of
/// allocations per exchange. Scrubbing with a shared scrubber is read-only (`ValueScrubber` is an immutable
/// value), so one cache serves every writer.
enum ValueScrubberCache {
    private struct Key: Hashable {
        var values: Set<String>
        var minimumLength: Int
    }

    /// A handful of entries: enough for a client whose token is refreshed mid-run, or a few clients sharing one
    /// recorder; evicted oldest first.
    private static let capacity = 8
    private static let entries = Mutex<[(key: Key, scrubber: ValueScrubber?)]>([])

    /// The scrubber for `values` (`nil` when there is nothing to scrub), built at most once per recent set.
    static func scrubber(values: Set<String>, minimumLength: Int) -> ValueScrubber? {
        guard !values.isEmpty else { return nil }
        let key = Key(values: values, minimumLength: minimumLength)
        if let hit = entries.withLock({ list in list.first { $0.key == key } }) { return hit.scrubber }
        let built = ValueScrubber(values: values, minimumLength: minimumLength)
        entries.withLock { list in
            if list.count >= capacity { list.removeFirst() }
            list.append((key, built))
        }
        return built
    }
}
