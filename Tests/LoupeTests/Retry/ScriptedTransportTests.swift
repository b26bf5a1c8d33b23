import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// Tests of the scripted and fault-injecting transports that LoupeTesting ships for retry scenarios.
@Suite struct ScriptedTransportTests {
    let clock = ManualClock()

    func client(_ transport: any ClientTransport, timeout: Duration? = nil) -> Client {
        RetryFixture.client(transport, middlewares: [], clock: clock, timeout: timeout)
    }

    func status(_ client: Client, _ method: HTTPRequest.Method = .get, path: String) async throws -> Int {
        try await client.execute(RetryFixture.request(method, path: path)).status.code
    }

    @Test func eachRouteFollowsItsScriptAndRepeatsTheLastStep() async throws {
        let transport = ScriptedTransport([
            .init(.get, .exact("/a"), [.status(503), .status(503), .status(200)]),
            .init(nil, .regex("/b/[0-9]+"), [.status(201, headers: [.location: "/b/1"], body: Data("made".utf8))]),
        ])
        let client = client(transport)
        var statuses: [Int] = []
        for _ in 1...4 { statuses.append(try await status(client, path: "/a")) }
        #expect(statuses == [503, 503, 200, 200])
        let made = try await client.execute(RetryFixture.request(.post, path: "/b/7?x=1"))
        #expect(made.status.code == 201)
        #expect(made.headerFields[.location] == "/b/1")
        #expect(made.value == Data("made".utf8))
        #expect(try await status(client, .post, path: "/a") == 404, "the /a script is for GET only")
        #expect(try await status(client, path: "/c") == 404)

        #expect(transport.callCount(path: "/a") == 5)
        #expect(transport.callCount(.get, path: "/a") == 4)
        #expect(transport.callCount(script: 0) == 4)
        #expect(transport.callCount(script: 1) == 1)
        #expect(transport.requests.count == 7)
    }

    @Test func copiesShareTheirPlaceInTheScript() async throws {
        let transport = ScriptedTransport([.status(500), .status(200)])
        let copy = transport
        #expect(try await status(client(transport), path: "/x") == 500)
        #expect(try await status(client(copy), path: "/x") == 200)
    }

    @Test func errorsAreThrownAsTheTransportWould() async throws {
        let transport = ScriptedTransport([.error(TransportError(.connectionReset, "peer reset")), .status(200)])
        let error = await #expect(throws: ClientError.self) { try await client(transport).execute(RetryFixture.request()) }
        #expect((error?.underlyingError as? TransportError)?.kind == .connectionReset)
        #expect(try await status(client(transport), path: "/x") == 200)
    }

    @Test func aDelayedStepWaitsOnTheInjectedClock() async throws {
        let transport = ScriptedTransport([.delay(.seconds(2), then: .status(200))], clock: clock)
        let client = client(transport)
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(2)])
        clock.advance(by: .seconds(2))
        #expect(try await task.value.status == .ok)
    }

    @Test func aDelayPastTheAttemptTimeoutTimesOut() async throws {
        let transport = ScriptedTransport([.delay(.seconds(5), then: .status(200))], clock: clock)
        let client = client(transport, timeout: .seconds(1))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: ClientError.self) { try await task.value }
        #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)
        #expect(clock.requestedSleeps == [.seconds(1)])
    }

    @Test func delayedBehaviourSlowsEveryAnswer() async throws {
        let transport = ScriptedTransport([.status(204)], behaviour: .delayed(.milliseconds(300)), clock: clock)
        let client = client(transport)
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(300))
        #expect(try await task.value.status == .noContent)
        #expect(clock.requestedSleeps == [.milliseconds(300)])
    }
}

@Suite struct FaultInjectingTransportTests {
    let clock = ManualClock()

    func outcomes(_ transport: FaultInjectingTransport, calls: Int, timeout: Duration? = nil) async -> [String] {
        let client = RetryFixture.client(transport, middlewares: [], clock: clock, timeout: timeout)
        var outcomes: [String] = []
        for _ in 1...calls {
            do {
                outcomes.append("\(try await client.execute(RetryFixture.request()).status.code)")
            } catch let error as ClientError {
                outcomes.append((error.underlyingError as? TransportError)?.kind.description ?? "\(error)")
            } catch {
                outcomes.append("\(error)")
            }
        }
        return outcomes
    }

    @Test func faultsByCallNumber() async throws {
        let base = ScriptedTransport([.status(200)])
        let transport = FaultInjectingTransport(wrapping: base, plan: .calls([2: .connectionReset, 3: .connectFailed, 4: .timeout]), clock: clock)
        #expect(await outcomes(transport, calls: 5) == ["200", "connection reset", "connect failed", "timed out", "200"])
        #expect(transport.callCount == 5)
        #expect(base.requests.count == 2, "failing faults never reach the wrapped transport")
        #expect(transport.injections.map(\.call) == [2, 3, 4])
    }

    @Test func everyNthCall() async throws {
        let transport = FaultInjectingTransport(wrapping: CannedTransport(RawResponse(status: .ok)), plan: .every(3, .connectionReset), clock: clock)
        #expect(await outcomes(transport, calls: 6) == ["200", "200", "connection reset", "200", "200", "connection reset"])
    }

    @Test func seededRandomFaultsAreReproducible() async throws {
        func run(seed: UInt64) async -> [FaultInjectingTransport.Injection] {
            let plan = FaultPlan.random(resetRate: 0.2, latencyRate: 0.1, latency: .zero, random: SeededRandomSource(seed: seed).unit)
            let transport = FaultInjectingTransport(wrapping: CannedTransport(RawResponse(status: .ok)), plan: plan, clock: clock)
            _ = await outcomes(transport, calls: 500)
            return transport.injections
        }
        let first = await run(seed: 42)
        #expect(await run(seed: 42) == first)
        #expect(await run(seed: 43) != first)
        let resets = first.count { $0.fault == .connectionReset }
        #expect((70...130).contains(resets), "about 20 % of 500 calls, got \(resets)")
        #expect((25...75).contains(first.count - resets), "about 10 % of 500 calls, got \(first.count - resets)")
    }

    @Test func latencyDelaysThenPassesTheCallThrough() async throws {
        let transport = FaultInjectingTransport(wrapping: CannedTransport(RawResponse(status: .ok)), plan: .calls([1: .latency(.seconds(2))]), clock: clock)
        let client = RetryFixture.client(transport, middlewares: [], clock: clock)
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(2)])
        clock.advance(by: .seconds(2))
        #expect(try await task.value.status == .ok)
    }

    @Test func aTimeoutFaultWaitsForTheAttemptTimeout() async throws {
        let transport = FaultInjectingTransport(wrapping: CannedTransport(RawResponse(status: .ok)), plan: .calls([1: .timeout]), clock: clock)
        let client = RetryFixture.client(transport, middlewares: [], clock: clock, timeout: .milliseconds(1_500))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1_500))
        let error = await #expect(throws: ClientError.self) { try await task.value }
        #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)
        #expect(clock.requestedSleeps == [.milliseconds(1_500)])
    }

    @Test func retryRidesOutInjectedFaults() async throws {
        let transport = FaultInjectingTransport(
            wrapping: CannedTransport(RawResponse(status: .ok)), plan: .calls([1: .connectionReset, 2: .connectFailed]), clock: clock)
        let observer = InMemoryClientObserver()
        let client = RetryFixture.client(
            transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero))], clock: clock, observer: observer)
        let response = try await client.execute(RetryFixture.request())
        #expect(response.status == .ok)
        #expect(response.attempts.map(\.status) == [nil, nil, 200])
        #expect(RetryFixture.annotations(observer).map(\.retryReason) == [nil, "connection reset", "connect failed"])
    }
}
