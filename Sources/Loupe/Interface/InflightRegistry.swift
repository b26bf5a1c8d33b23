import Foundation
import Synchronization

/// The exchanges a client (and every copy of it) has in flight, so ``Client/cancelAll()`` can reach them.
final class InflightRegistry: Sendable {
    private let tasks = Mutex<[UUID: @Sendable () -> Void]>([:])

    func insert(_ id: UUID, cancel: @escaping @Sendable () -> Void) {
        tasks.withLock { $0[id] = cancel }
    }

    func remove(_ id: UUID) {
        _ = tasks.withLock { $0.removeValue(forKey: id) }
    }

    var count: Int { tasks.withLock { $0.count } }

    /// Cancels everything in flight now; exchanges started afterwards are not affected.
    func cancelAll() {
        let cancels = tasks.withLock { Array($0.values) }
        cancels.forEach { $0() }
    }
}
