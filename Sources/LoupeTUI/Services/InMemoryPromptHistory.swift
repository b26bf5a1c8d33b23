import Synchronization

/// Prompt history held in memory, for tests and for runs that should leave nothing on disk.
package final class InMemoryPromptHistory: PromptHistoryStore {
    private let store: Mutex<[String: [String]]>

    /// A history starting with `entries` per kind (oldest first), as given.
    package init(_ entries: [String: [String]] = [:]) {
        store = Mutex(entries)
    }

    package func entries(for kind: String) -> [String] {
        store.withLock { $0[kind] ?? [] }
    }

    package func record(_ entry: String, for kind: String) {
        guard PromptHistoryRules.isValidKind(kind), PromptHistoryRules.isRecordable(entry) else { return }
        store.withLock { $0[kind] = PromptHistoryRules.appending(entry, to: $0[kind] ?? []) }
    }
}
