import Foundation
import Synchronization

/// Where background work (replays) leaves actions for the runner's next turn. Thread-safe through a `Mutex`.
final class ActionInbox: Sendable {
    private let pending = Mutex<[(token: UUID, action: TUIAction)]>([])

    func post(_ action: TUIAction, token: UUID) {
        pending.withLock { $0.append((token, action)) }
    }

    func drain() -> [(token: UUID, action: TUIAction)] {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}
