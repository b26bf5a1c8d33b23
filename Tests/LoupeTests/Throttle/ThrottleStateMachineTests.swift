import Foundation
@testable import Loupe
import LoupeTesting
import Testing

@Suite struct ThrottleStateMachineTests {
    typealias Machine = ThrottleStateMachine

    @Test func runsUpToTheLimitThenQueuesAndGrantsInArrivalOrder() {
        var machine = Machine(maxConcurrent: 2, maxConcurrentPerHost: nil)
        let actions = (1...5).map { machine.acquire(UInt64($0), host: "h") }
        #expect(actions == [.run, .run, .wait(position: 1, limit: .client), .wait(position: 2, limit: .client),
                            .wait(position: 3, limit: .client)])
        let first = machine.release(host: "h")
        #expect(first == [3])
        let second = machine.release(host: "h")
        #expect(second == [4])
        #expect(machine.running == 2 && machine.queue.map(\.id) == [5])
    }

    @Test func waitersQueueByPriorityThenArrival() {
        var machine = Machine(maxConcurrent: 1, maxConcurrentPerHost: nil)
        _ = machine.acquire(1, host: "h")
        let low = machine.acquire(2, host: "h", priority: .low)
        let normal = machine.acquire(3, host: "h")
        let high = machine.acquire(4, host: "h", priority: .high)
        let urgent = machine.acquire(5, host: "h", priority: RequestPriority(rawValue: 5))
        let secondHigh = machine.acquire(6, host: "h", priority: .high)
        // Positions say where each went in line when it arrived.
        #expect([low, normal, high, urgent, secondHigh].map {
            if case .wait(let position, _) = $0 { position } else { 0 }
        } == [1, 1, 1, 1, 3])
        #expect(machine.queue.map(\.id) == [5, 4, 6, 3, 2])
        var granted: [UInt64] = []
        for _ in 0..<5 { granted += machine.release(host: "h") }
        #expect(granted == [5, 4, 6, 3, 2])
    }

    @Test func aFullHostDoesNotHoldUpOtherHosts() {
        var machine = Machine(maxConcurrent: 3, maxConcurrentPerHost: 1)
        let a1 = machine.acquire(1, host: "a")
        let a2 = machine.acquire(2, host: "a")
        let b1 = machine.acquire(3, host: "b")
        let a3 = machine.acquire(4, host: "a")
        #expect([a1, a2, b1, a3] == [.run, .wait(position: 1, limit: .host), .run, .wait(position: 2, limit: .host)])
        #expect(machine.runningPerHost == ["a": 1, "b": 1])
        // b's permit frees a client-wide slot, but both waiters are for the full host a.
        let none = machine.release(host: "b")
        #expect(none.isEmpty)
        let next = machine.release(host: "a")
        #expect(next == [2], "FIFO within host a")
    }

    @Test func theClientLimitGrantsTheOldestRunnableWaiter() {
        var machine = Machine(maxConcurrent: 2, maxConcurrentPerHost: 1)
        _ = machine.acquire(1, host: "a")
        _ = machine.acquire(2, host: "b")
        _ = machine.acquire(3, host: "a")  // held by host a (and the client limit)
        _ = machine.acquire(4, host: "c")
        _ = machine.acquire(5, host: "d")
        // Host b's slot frees one client permit: waiter 3 is still blocked by host a, so 4 (older than 5) runs.
        let granted = machine.release(host: "b")
        #expect(granted == [4])
        #expect(machine.queue.map(\.id) == [3, 5])
    }

    @Test func cancellingAQueuedWaiterRemovesItAndAGrantedOneIsNotQueued() {
        var machine = Machine(maxConcurrent: 1, maxConcurrentPerHost: nil)
        _ = machine.acquire(1, host: "h")
        _ = machine.acquire(2, host: "h")
        _ = machine.acquire(3, host: "h")
        let removed = machine.cancel(2)
        let again = machine.cancel(2)
        let running = machine.cancel(1)
        #expect(removed && !again && !running)
        let granted = machine.release(host: "h")
        #expect(granted == [3])
    }

    /// Random acquire / release / cancel sequences keep every invariant (seeded, so a failure reproduces).
    @Test(arguments: 0..<200 as Range<UInt64>)
    func invariantsHoldForRandomSequences(seed: UInt64) {
        var random = SeededRandomSource(seed: seed)
        let maxConcurrent = Int(random.next() % 4) + 1
        let maxPerHost = Int(random.next() % 3) + 1
        var machine = Machine(maxConcurrent: maxConcurrent, maxConcurrentPerHost: maxPerHost)
        var running: [UInt64: String] = [:]
        var nextID: UInt64 = 0
        for _ in 0..<200 {
            switch random.next() % 3 {
            case 0:
                nextID += 1
                let host = ["a", "b", "c"][Int(random.next() % 3)]
                if random.next() % 2 == 0 {
                    if machine.acquire(nextID, host: host) == .run { running[nextID] = host }
                } else if machine.acquireIfFree(host: host) {
                    #expect(!machine.queue.contains { $0.host == host }, "no overtaking a waiter for the same host")
                    running[nextID] = host
                }
            case 1:
                guard let (id, host) = running.sorted(by: { $0.key < $1.key }).randomElement(using: &random) else { continue }
                running[id] = nil
                let queuedHosts = Dictionary(uniqueKeysWithValues: machine.queue.map { ($0.id, $0.host) })
                let granted = machine.release(host: host)
                #expect(granted == granted.sorted(), "granted in arrival order")
                for id in granted {
                    let host = queuedHosts[id] ?? "?"
                    running[id] = host
                    #expect(!machine.queue.contains { $0.host == host && $0.id < id }, "FIFO within a host")
                }
            default:
                guard let waiter = machine.queue.randomElement(using: &random) else { continue }
                let removed = machine.cancel(waiter.id)
                #expect(removed)
            }
            #expect(machine.running == running.count)
            #expect(machine.running <= maxConcurrent)
            #expect(machine.runningPerHost.values.allSatisfy { $0 <= maxPerHost })
            #expect(machine.runningPerHost.values.reduce(0, +) == machine.running)
            #expect(machine.runningPerHost.values.allSatisfy { $0 > 0 }, "a host with nothing running has no entry")
            // Nobody waits who could run.
            let clientFull = machine.running >= maxConcurrent
            #expect(machine.queue.allSatisfy { clientFull || machine.runningPerHost[$0.host, default: 0] >= maxPerHost })
        }
    }
}
