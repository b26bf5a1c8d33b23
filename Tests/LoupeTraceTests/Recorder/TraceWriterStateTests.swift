@testable import LoupeTrace
import Testing

/// The writer's decisions, driven by plain calls: events in, actions out, no tasks and no clock.
@Suite("TraceWriterStateMachine")
struct TraceWriterStateTests {
    typealias Machine = TraceWriterStateMachine<Int>

    /// A machine whose background task has started and parked on the empty queue, as it does at creation.
    static func parked(capacity: Int = 10, batchSize: Int = 3) -> Machine {
        var machine = Machine(capacity: capacity, batchSize: batchSize, flushInterval: .milliseconds(100))
        #expect(machine.nextStep().isPark)
        return machine
    }

    @Test("the first item wakes the parked worker; a partial batch opens one flush interval")
    func partialBatchWaitsOneWindow() {
        var machine = Self.parked()
        #expect(machine.enqueue(1) == .accepted(.wakeWorker))
        #expect(machine.enqueue(2) == .accepted(.none))  // already awake: no second wake-up
        #expect(machine.nextStep().sleepInterval == .milliseconds(100))
        machine.batchWindowEnded()
        #expect(machine.nextStep().batch == [1, 2])
        #expect(machine.batchWritten(2, failure: nil) == [])
        #expect(machine.nextStep().isPark)
        #expect(machine.written == 2)
    }

    @Test("filling a batch ends the window early, once; batches never exceed the batch size")
    func fullBatchEndsWindow() {
        var machine = Self.parked(batchSize: 3)
        _ = machine.enqueue(1)
        #expect(machine.nextStep().sleepInterval != nil)
        #expect(machine.enqueue(2) == .accepted(.none))
        #expect(machine.enqueue(3) == .accepted(.endBatchWindow))
        #expect(machine.enqueue(4) == .accepted(.none))  // the window is already ending
        machine.batchWindowEnded()
        #expect(machine.nextStep().batch == [1, 2, 3])
        _ = machine.batchWritten(3, failure: nil)
        // The leftover item has not waited yet: it gets a window of its own.
        #expect(machine.nextStep().sleepInterval != nil)
    }

    @Test("a full queue drops the newest item and counts it; the in-flight batch does not count")
    func boundedCapacity() {
        var machine = Self.parked(capacity: 2, batchSize: 1)
        #expect(machine.enqueue(1) == .accepted(.wakeWorker))
        #expect(machine.nextStep().batch == [1])  // a full batch goes at once, no window
        #expect(machine.enqueue(2) == .accepted(.none))
        #expect(machine.enqueue(3) == .accepted(.none))
        #expect(machine.enqueue(4) == .dropped)
        #expect(machine.enqueue(5) == .dropped)
        #expect(machine.dropped == 2)
        #expect(machine.queue.count == 2)
        #expect(machine.accepted == 3)
    }

    @Test("flush returns at once when nothing is pending, else waits for exactly the items before it")
    func flushWaitsForItsItems() throws {
        var machine = Self.parked(batchSize: 2)
        #expect(machine.flush() == .returnNow)
        _ = machine.enqueue(1)
        _ = machine.enqueue(2)
        #expect(machine.nextStep().batch == [1, 2])  // a full batch: no window
        let first = try #require(machine.flush().waiting(with: .none))
        _ = machine.enqueue(3)
        let second = try #require(machine.flush().waiting(with: .none))
        #expect(machine.batchWritten(2, failure: nil) == [first])
        // A flush is waiting, so the partial batch skips its window.
        #expect(machine.nextStep().batch == [3])
        #expect(machine.batchWritten(1, failure: nil) == [second])
    }

    @Test("flush ends a running window and wakes nothing else")
    func flushEndsWindow() throws {
        var machine = Self.parked()
        _ = machine.enqueue(1)
        #expect(machine.nextStep().sleepInterval != nil)
        let id = try #require(machine.flush().waiting(with: .endBatchWindow))
        #expect(machine.flush().nudge == Machine.Nudge.none)  // ending already
        machine.batchWindowEnded()
        #expect(machine.nextStep().batch == [1])
        #expect(machine.batchWritten(1, failure: nil).first == id)
    }

    @Test("a failed batch is counted as processed and failed, not written, and still releases flushes")
    func storeFailure() throws {
        var machine = Self.parked(batchSize: 1)
        _ = machine.enqueue(1)
        #expect(machine.nextStep().batch == [1])
        let id = try #require(machine.flush().waitID)
        #expect(machine.batchWritten(1, failure: "DiskFull") == [id])
        #expect(machine.written == 0)
        #expect(machine.failedWrites == 1)
        #expect(machine.failedItems == 1)
        #expect(machine.lastError == "DiskFull")
    }

    @Test("stop wakes a parked worker, which finishes at once; later items are dropped, flushes return")
    func stopWhileParked() {
        var machine = Self.parked()
        #expect(machine.stop() == .wakeWorker)
        #expect(machine.nextStep().finished == [])
        #expect(machine.isFinished)
        #expect(machine.enqueue(1) == .dropped)
        #expect(machine.flush() == .returnNow)
    }

    @Test("stop during a window drains the queue in full batches, then finishes")
    func stopDrains() throws {
        var machine = Self.parked(batchSize: 2)
        _ = machine.enqueue(1)
        #expect(machine.nextStep().sleepInterval != nil)
        let id = try #require(machine.flush().waiting(with: .endBatchWindow))
        _ = machine.enqueue(2)
        _ = machine.enqueue(3)
        #expect(machine.stop() == .none)  // the window is already ending
        #expect(machine.enqueue(4) == .dropped)
        machine.batchWindowEnded()
        #expect(machine.nextStep().batch == [1, 2])
        #expect(machine.batchWritten(2, failure: nil) == [id])  // it waited for item 1 only
        #expect(machine.nextStep().batch == [3])  // stopping: no window
        #expect(machine.batchWritten(1, failure: nil) == [])
        #expect(machine.nextStep().finished == [])
        #expect(machine.isFinished)
    }

    @Test("flushes still waiting when the worker finishes are released by the final step")
    func finishReleasesWaiters() throws {
        var machine = Self.parked(batchSize: 1)
        _ = machine.enqueue(1)
        #expect(machine.nextStep().batch == [1])
        let id = try #require(machine.flush().waiting(with: .none))
        _ = machine.stop()
        // However the steps interleave, a waiter still parked when the task ends is released, never stranded.
        #expect(machine.nextStep().finished == [id])
    }

    @Test("capacity and batch size are at least one")
    func clampedSettings() {
        let machine = Machine(capacity: 0, batchSize: -1, flushInterval: .zero)
        #expect(machine.capacity == 1)
        #expect(machine.batchSize == 1)
    }
}

extension TraceWriterStateMachine.FlushAction {
    var waitID: TraceWriterStateMachine.FlushID? { if case .wait(let id, _) = self { id } else { nil } }
    var nudge: TraceWriterStateMachine.Nudge? { if case .wait(_, let nudge) = self { nudge } else { nil } }
    /// The waiter's id when the flush waits and nudges the worker as expected.
    func waiting(with expected: TraceWriterStateMachine.Nudge) -> TraceWriterStateMachine.FlushID? {
        nudge == expected ? waitID : nil
    }
}

extension TraceWriterStateMachine.Step {
    var isPark: Bool { if case .park = self { true } else { false } }
    var sleepInterval: Duration? { if case .sleep(let interval) = self { interval } else { nil } }
    var batch: [Item]? { if case .write(let batch) = self { batch } else { nil } }
    var finished: [TraceWriterStateMachine.FlushID]? { if case .finish(let ids) = self { ids } else { nil } }
}
