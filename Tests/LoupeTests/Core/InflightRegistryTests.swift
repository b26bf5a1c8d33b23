import Foundation
import Testing

@testable import Loupe

/// `InflightRegistry` keeps its first few tasks in an array and the rest in a dictionary (DECISIONS 42): the two
/// together behave as the one dictionary did, across the boundary.
@Suite struct InflightRegistryTests {
    /// A task that waits, without a clock, until it is cancelled: an `AsyncStream` that never yields ends its
    /// iteration on cancellation.
    static func waitingTask() -> Task<RawResponse, any Error> {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        return Task {
            withExtendedLifetime(continuation) {}  // A stream whose continuation is gone would end at once.
            for await _ in stream {}
            throw CancellationError()
        }
    }

    @Test func insertReplaceRemoveAndCancelAcrossTheArrayAndTheDictionary() {
        let registry = InflightRegistry()
        let ids = (0..<40).map { _ in UUID() }
        var tasks = ids.map { _ in Self.waitingTask() }
        for (id, task) in zip(ids, tasks) { registry.insert(id, task) }
        #expect(registry.count == 40)

        // Inserting an id again replaces its task, in either part, as a dictionary's subscript did.
        var replaced: [Task<RawResponse, any Error>] = []
        for index in [3, 30] {
            replaced.append(tasks[index])
            tasks[index] = Self.waitingTask()
            registry.insert(ids[index], tasks[index])
        }
        #expect(registry.count == 40)

        // Removing from both parts, and an id never inserted.
        let removed = Array(0..<10) + Array(25..<35)
        for index in removed { registry.remove(ids[index]) }
        registry.remove(UUID())
        #expect(registry.count == 20)

        // Room made in the array takes new ids again; the ones left in the dictionary are still found.
        let late = UUID()
        let lateTask = Self.waitingTask()
        registry.insert(late, lateTask)
        #expect(registry.count == 21)

        registry.cancelAll()
        for index in ids.indices {
            #expect(tasks[index].isCancelled == !removed.contains(index), "task \(index)")
        }
        #expect(lateTask.isCancelled)
        #expect(replaced.allSatisfy { !$0.isCancelled })

        for index in ids.indices { registry.remove(ids[index]) }
        registry.remove(late)
        #expect(registry.count == 0)
        for task in tasks + replaced { task.cancel() }
    }
}
