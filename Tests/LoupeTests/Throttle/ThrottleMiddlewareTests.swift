import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThrottleMiddlewareTests {
    /// Holds every request at one gate and tracks how many are inside at once.
    final class CountingServer: Sendable {
        let gate = Interleaving.Gate()
        let order = Recorded<String>()
        private let inside = Mutex((now: 0, max: 0))

        var maxInside: Int { inside.withLock { $0.max } }

        var transport: MockTransport {
            MockTransport { request, _, _ in
                self.inside.withLock { $0.now += 1; $0.max = max($0.max, $0.now) }
                defer { self.inside.withLock { $0.now -= 1 } }
                self.order.append("\(request.authority ?? "")\(request.path ?? "")")
                try await self.gate.pass()
                return RawResponse(status: .ok)
            }
        }
    }

    @Test func neverMoreThanTheClientLimitInFlight() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 3)
        let client = Interleaving.client(server.transport, middlewares: [throttle])
        let tasks = (0..<20).map { _ in Task { try await client.execute(Interleaving.request()) } }
        await server.gate.waitForArrivals(3)
        #expect(await Interleaving.eventually { throttle.snapshot.queued == 17 })
        #expect(throttle.snapshot.running == 3 && throttle.snapshot.availablePermits == 0)
        server.gate.open()
        for task in tasks { #expect(try await task.value.status == .ok) }
        #expect(server.maxInside == 3)
        #expect(throttle.snapshot == ThrottleSnapshot(running: 0, queued: 0, runningPerHost: [:], maxConcurrent: 3))
    }

    @Test func waitersRunInArrivalOrder() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let client = Interleaving.client(server.transport, middlewares: [throttle])
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for (index, name) in ["a", "b", "c", "d", "e"].enumerated() {
            tasks.append(Task { try await client.execute(Interleaving.request(.get, "https://api.example.test/\(name)")) })
            // Each one queued before the next starts, so arrival order is known.
            #expect(await Interleaving.eventually { throttle.snapshot.running + throttle.snapshot.queued == index + 1 })
        }
        server.gate.open()
        for task in tasks { _ = try await task.value }
        #expect(server.order.values == ["a", "b", "c", "d", "e"].map { "api.example.test/\($0)" })
    }

    @Test func higherPriorityWaitersOvertakeLowerOnesAndKeepArrivalOrderAmongThemselves() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let client = Interleaving.client(server.transport, middlewares: [throttle])
        let arrivals: [(String, RequestPriority)] = [
            ("first", .normal), ("low1", .low), ("normal1", .normal), ("high1", .high), ("low2", .low), ("high2", .high),
        ]
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for (index, (name, priority)) in arrivals.enumerated() {
            tasks.append(Task {
                try await client.execute(
                    Interleaving.request(.get, "https://api.example.test/\(name)"), metadata: RequestMetadata(priority: priority))
            })
            #expect(await Interleaving.eventually { throttle.snapshot.running + throttle.snapshot.queued == index + 1 })
        }
        server.gate.open()
        for task in tasks { _ = try await task.value }
        #expect(server.order.values == ["first", "high1", "high2", "normal1", "low1", "low2"].map { "api.example.test/\($0)" })
    }

    @Test func perHostLimitsLetOtherHostsThrough() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: nil, maxConcurrentPerHost: 1)
        let client = Interleaving.client(server.transport, middlewares: [throttle])
        let urls = ["https://one.test/1", "https://one.test/2", "https://two.test/1", "https://two.test/2"]
        let tasks = urls.map { url in Task { try await client.execute(Interleaving.request(.get, url)) } }
        await server.gate.waitForArrivals(2)
        #expect(await Interleaving.eventually { throttle.snapshot.queued == 2 })
        #expect(throttle.snapshot.runningPerHost == ["one.test": 1, "two.test": 1])
        #expect(Set(server.order.values.map { $0.prefix(8) }) == ["one.test", "two.test"])
        server.gate.open()
        for task in tasks { _ = try await task.value }
        #expect(server.maxInside == 2)
        #expect(throttle.snapshot.running == 0 && throttle.snapshot.runningPerHost.isEmpty)
    }

    @Test func aCancelledWaiterGivesUpItsPlace() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [throttle], observer: log)
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for (index, name) in ["a", "b", "c"].enumerated() {
            tasks.append(Task { try await client.execute(Interleaving.request(.get, "https://api.example.test/\(name)")) })
            #expect(await Interleaving.eventually { throttle.snapshot.running + throttle.snapshot.queued == index + 1 })
        }
        tasks[1].cancel()
        guard let error = await clientError(of: tasks[1]) else { return }
        #expect(error.stage == .cancelled)
        #expect(throttle.snapshot.queued == 1)
        server.gate.open()
        _ = try await (tasks[0].value, tasks[2].value)
        #expect(server.order.values == ["api.example.test/a", "api.example.test/c"])
        #expect(log.events(.throttleWait).compactMap { $0.attributes["outcome"] }.sorted() == ["cancelled", "granted"])
    }

    @Test func theWaitIsRecordedWithItsDurationOnTheClientsClock() async throws {
        let clock = ManualClock()
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [throttle], clock: clock, observer: log)
        let first = Task { try await client.execute(Interleaving.request()) }
        await server.gate.waitForArrivals(1)
        let second = Task { try await client.execute(Interleaving.request()) }
        #expect(await Interleaving.eventually { throttle.snapshot.queued == 1 })
        clock.advance(by: .seconds(2))
        server.gate.open()
        _ = try await (first.value, second.value)
        let waits = log.events(.throttleWait)
        #expect(waits.count == 1)
        #expect(waits.first?.attributes == ["waitMs": "2000", "limit": "client", "host": "api.example.test",
                                           "position": "1", "priority": "normal", "outcome": "granted"])
    }

    @Test func requestsInsideATokenRefreshBypassTheThrottle() async throws {
        let server = CountingServer()
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let client = Interleaving.client(server.transport, middlewares: [throttle])
        let holder = Task { try await client.execute(Interleaving.request()) }
        await server.gate.waitForArrivals(1)
        let refresh = Task {
            try await BearerTokenMiddleware.$isInsideTokenRefresh.withValue(true) {
                try await client.execute(Interleaving.request(.post, "https://api.example.test/token"))
            }
        }
        await server.gate.waitForArrivals(2)
        #expect(throttle.snapshot.running == 1 && throttle.snapshot.queued == 0)
        server.gate.open()
        _ = try await (holder.value, refresh.value)
    }
}
