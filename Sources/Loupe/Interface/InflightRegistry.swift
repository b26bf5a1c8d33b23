import Foundation
import Synchronization

/// The exchanges a client (and every copy of it) has in flight, so ``Client/cancelAll()`` can reach them.
final class InflightRegistry: Sendable {
    /// The exchanges' own tasks, not closures that cancel them: a closure would be one more allocation a request.
    ///
    /// The first few sit in an array found by comparing ids, the rest in a dictionary: most clients have a handful
    /// in flight, and an insert and a remove by `UUID` hash cost two `Hasher` runs a request that a scan of a few
    /// 16-byte ids does not. Past `few`, a scan would grow with the load, so the dictionary takes over.
    private struct Tasks {
        static let few = 16
        var first: [(id: UUID, task: Task<RawResponse, any Error>)] = []
        var rest: [UUID: Task<RawResponse, any Error>] = [:]

        mutating func insert(_ id: UUID, _ task: Task<RawResponse, any Error>) {
            if let index = first.firstIndex(where: { $0.id == id }) {
                first[index].task = task
            } else if first.count < Self.few, rest.isEmpty || rest[id] == nil {
                first.append((id, task))
            } else {
                rest[id] = task
            }
        }

        mutating func remove(_ id: UUID) {
            if let index = first.firstIndex(where: { $0.id == id }) {
                first.swapAt(index, first.count - 1)
                first.removeLast()
            } else if !rest.isEmpty {
                rest.removeValue(forKey: id)
            }
        }

        var count: Int { first.count + rest.count }
        var all: [Task<RawResponse, any Error>] { first.map(\.task) + Array(rest.values) }
    }

    private let tasks = Mutex(Tasks())

    func insert(_ id: UUID, _ task: Task<RawResponse, any Error>) {
        tasks.withLock { $0.insert(id, task) }
    }

    func remove(_ id: UUID) {
        tasks.withLock { $0.remove(id) }
    }

    var count: Int { tasks.withLock { $0.count } }

    /// Cancels everything in flight now; exchanges started afterwards are not affected.
    func cancelAll() {
        let running = tasks.withLock { $0.all }
        running.forEach { $0.cancel() }
    }
}
