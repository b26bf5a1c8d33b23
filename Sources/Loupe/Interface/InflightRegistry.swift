import Foundation
import Synchronization

/// The exchanges a client (and every copy of it) has in flight, so ``Client/cancelAll()`` can reach them.
final class InflightRegistry: Sendable {
    /// The exchanges' own tasks, not closures that cancel them: a closure would be one more allocation a request.
    private let tasks = Mutex<[UUID: Task<RawResponse, any Error>]>([:])

    func insert(_ id: UUID, _ task: Task<RawResponse, any Error>) {
        tasks.withLock { $0[id] = task }
    }

    func remove(_ id: UUID) {
        _ = tasks.withLock { $0.removeValue(forKey: id) }
    }

    var count: Int { tasks.withLock { $0.count } }

    /// Cancels everything in flight now; exchanges started afterwards are not affected.
    func cancelAll() {
        let running = tasks.withLock { Array($0.values) }
        running.forEach { $0.cancel() }
    }
}
