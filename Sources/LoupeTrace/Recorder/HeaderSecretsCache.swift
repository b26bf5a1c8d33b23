import Synchronization

/// What ``SecretCollector/addHeader(name:value:)`` finds in the last few redacted headers, so that consecutive
/// exchanges carrying the same credential (every request of a client with one bearer token) parse it once.
///
/// The answer is a pure function of the header's name and value (``SecretCollector/headerCandidates(name:value:)``):
/// a changed value (a refreshed token) is a different key, parsed anew, and each collector still applies its own
/// limits to what the cache gives, so redaction is exactly what it was without the cache. Bounded twice: at most
/// ``capacity`` entries (the oldest evicted first), and values longer than ``longestValue`` bytes are parsed every
/// time and never kept (a cookie header can be kilobytes; bearer tokens and Basic credentials are not). The secrets
/// it holds are those the recorder is about to scrub, as ``ValueScrubberCache``'s keys already hold them.
enum HeaderSecretsCache {
    /// A handful of entries: a client's `Authorization`, its `Cookie`, a token refreshed mid-run, a few clients
    /// sharing one recorder.
    static let capacity = 16
    /// Longer values are not kept.
    static let longestValue = 1024

    private struct Entry {
        var name: String
        var value: String
        var candidates: [String]
    }

    private static let entries = Mutex<[Entry]>([])

    /// The candidates `addHeader` keeps from this header, in order; parsed at most once per recent pair.
    static func candidates(name: String, value: String) -> [String] {
        guard value.utf8.count <= longestValue else {
            return SecretCollector.headerCandidates(name: name, value: value)
        }
        if let hit = entries.withLock({ list in list.last { $0.value == value && $0.name == name } }) {
            return hit.candidates
        }
        let found = SecretCollector.headerCandidates(name: name, value: value)
        entries.withLock { list in
            if list.count >= capacity { list.removeFirst() }
            list.append(Entry(name: name, value: value, candidates: found))
        }
        return found
    }

    /// How many entries are kept now (tests check the bound).
    static var count: Int { entries.withLock { $0.count } }
}
