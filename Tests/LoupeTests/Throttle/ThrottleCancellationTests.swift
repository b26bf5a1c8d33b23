import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// The issue's proof: permits never leak, whatever is cancelled and in whatever order.
@Suite(.timeLimit(.minutes(5))) struct ThrottleCancellationTests {
    static let tasks = 10

    /// Ten requests to two hosts (limit 3, 2 per host), each held at its own gate; a seeded random mix of
    /// cancellations (queued, running, before starting) and completions; then every permit must be back.
    @Test(arguments: 0..<60 as Range<UInt64>)
    func permitsNeverLeakAfterCancellation(seed: UInt64) async throws {
        var random = SeededRandomSource(seed: seed)
        let gates = (0..<Self.tasks).map { _ in Interleaving.Gate() }
        let transport = MockTransport { request, _, _ in
            let index = Int(request.headerFields[HTTPField.Name("X-Task")!] ?? "") ?? 0
            try await gates[index].pass()
            return RawResponse(status: .ok)
        }
        let throttle = ThrottleMiddleware(maxConcurrent: 3, maxConcurrentPerHost: 2)
        let client = Interleaving.client(transport, middlewares: [throttle])
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for index in 0..<Self.tasks {
            let host = random.next() % 2 == 0 ? "one.test" : "two.test"
            let request = Interleaving.request(.get, "https://\(host)/\(index)", headers: [HTTPField.Name("X-Task")!: "\(index)"])
            let task = Task { try await client.execute(request) }
            tasks.append(task)
            if random.next() % 8 == 0 { task.cancel() }  // cancelled before (or while) it queues
        }
        // Cancel or finish every task in a random order, sometimes letting the throttle settle in between.
        for index in (0..<Self.tasks).shuffled(using: &random) {
            if random.next() % 2 == 0 { tasks[index].cancel() } else { gates[index].open() }
            if random.next() % 2 == 0 { await Task.yield() }
        }
        for gate in gates { gate.open() }
        for task in tasks { _ = await task.result }
        #expect(throttle.snapshot == ThrottleSnapshot(running: 0, queued: 0, runningPerHost: [:], maxConcurrent: 3))

        // And the permits work: three new requests run at once.
        let after = Interleaving.Gate()
        let probe = Interleaving.client(MockTransport { _, _, _ in
            try await after.pass()
            return RawResponse(status: .ok)
        }, middlewares: [throttle])
        let probes = (0..<3).map { i in Task { try await probe.execute(Interleaving.request(.get, "https://\(["a", "b", "c"][i]).test/")) } }
        // Bounded: with a leaked permit the third would never arrive, and the test must fail, not hang.
        #expect(await Interleaving.eventually { after.arrivals == 3 })
        #expect(throttle.snapshot.availablePermits == 0)
        after.open()
        for probe in probes { _ = try await probe.value }
        #expect(throttle.snapshot.availablePermits == 3)
    }

    @Test func cancellingEveryRunningAndQueuedRequestAtOnceReturnsAllPermits() async throws {
        let gate = Interleaving.Gate()
        let transport = MockTransport { _, _, _ in
            try await gate.pass()
            return RawResponse(status: .ok)
        }
        let throttle = ThrottleMiddleware(maxConcurrent: 4)
        let client = Interleaving.client(transport, middlewares: [throttle])
        let tasks = (0..<100).map { _ in Task { try await client.execute(Interleaving.request()) } }
        await gate.waitForArrivals(4)
        #expect(await Interleaving.eventually { throttle.snapshot.queued == 96 })
        for task in tasks.reversed() { task.cancel() }
        for task in tasks {
            guard let error = await clientError(of: task) else { continue }
            #expect(error.stage == .cancelled)
        }
        #expect(throttle.snapshot == ThrottleSnapshot(running: 0, queued: 0, runningPerHost: [:], maxConcurrent: 4))
    }
}
