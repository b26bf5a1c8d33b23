import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

@Suite struct CircuitBreakerMiddlewareTests {
    static let ping = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/ping")!)

    /// A transport answering with the status in `status`, counting the requests that reach it.
    final class Server: Sendable {
        let status = Mutex(500)
        let hits = Mutex(0)
        var transport: MockTransport {
            MockTransport { _, _, _ in
                self.hits.withLock { $0 += 1 }
                return RawResponse(status: .init(code: self.status.withLock { $0 }))
            }
        }
    }

    @Test func aFastFailureCarriesTheKeyAndTheTimeUntilTheNextProbe() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2, wait: .seconds(30)))
        let client = makeBreakerClient(server.transport, middlewares: [breaker], observer: observer, clock: clock)
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }

        clock.advance(by: .seconds(12))
        let error = await #expect(throws: ClientError.self) { try await client.execute(Self.ping) }
        let open = try #require(error?.underlyingError as? CircuitOpenError)
        #expect(open == CircuitOpenError(key: "api.example.com", state: .open, retryAfter: .seconds(18)))
        #expect(open.description == "circuit api.example.com is open; next probe in 18.0 s")
        #expect(server.hits.withLock { $0 } == 2)  // the rejected request never reached the transport
        let rejected = try #require(observer.finishedExchanges.last)
        #expect(rejected.outcome == .shortCircuited)
        #expect(rejected.attemptCount == 0)
    }

    @Test func theTransitionIsRecordedOnTheExchangeThatCausedIt() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2))
        let client = makeBreakerClient(server.transport, middlewares: [breaker], observer: observer, clock: clock)
        _ = try await client.execute(Self.ping)
        let second = try await client.execute(Self.ping)

        let events = observer.events.filter { $0.kind == .circuitTransition }
        #expect(events.count == 1)
        #expect(events.first?.exchangeID == second.exchangeID)
        var attributes = try #require(events.first?.attributes)
        let probeAt = try #require(attributes.removeValue(forKey: "probeAt").flatMap(Double.init))
        let wait = try #require(attributes.removeValue(forKey: "waitMs").flatMap(Double.init))
        #expect(attributes == [
            "key": "api.example.com", "from": "closed", "to": "open", "reason": "failure rate 100% ≥ 50% over 2 calls",
        ])
        // The first probe is due one wait after the move, in wall-clock seconds.
        let at = try #require(events.first?.at.timeIntervalSince1970)
        #expect(abs(probeAt - (at + wait / 1000)) < 1)
    }

    @Test func thresholdsAreRecordedOnceAndRefusalsEachTime() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let configuration = CircuitBreakerConfiguration.small(window: 2, minimum: 2, wait: .seconds(30))
        let breaker = CircuitBreakerMiddleware(configuration: configuration)
        let client = makeBreakerClient(server.transport, middlewares: [breaker], observer: observer, clock: clock)
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }
        clock.advance(by: .seconds(10))
        for _ in 0..<2 { _ = try? await client.execute(Self.ping) }

        let configs = observer.events.filter { $0.kind == .circuitConfigured }
        #expect(configs.count == 1)
        #expect(configs.first?.attributes["key"] == "api.example.com")
        #expect(configs.first?.attributes["waitMs"] == "30000")
        #expect(configs.first?.attributes["windowCalls"] == "2")
        let rejections = observer.events.filter { $0.kind == .shortCircuit }
        #expect(rejections.map { $0.attributes["retryAfterMs"] } == ["20000", "20000"])
        #expect(rejections.allSatisfy { $0.attributes["state"] == "open" })
    }

    @Test func theTimerThatEndedTheWaitIsRecordedOnTheHalfOpenMove() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2, wait: .seconds(30)))
        let client = makeBreakerClient(server.transport, middlewares: [breaker], observer: observer, clock: clock)
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }
        clock.advance(by: .seconds(45))
        _ = try? await client.execute(Self.ping)

        let halfOpen = try #require(observer.events.first { $0.attributes["to"] == "half-open" })
        let timerAt = try #require(halfOpen.attributes["timerAt"].flatMap(Double.init))
        let transition = try #require(breaker.registry.history().first { $0.transition.to == .halfOpen })
        #expect(transition.transition.overdue == .seconds(15))
        // The wall clock here is the client's; the timer ran out 15 s of breaker time before the move.
        #expect(timerAt < halfOpen.at.timeIntervalSince1970)
    }

    @Test func attemptsCarryTheStateAtDispatchAndHealthyProbesClose() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2, wait: .seconds(30), permitted: 2))
        let client = makeBreakerClient(server.transport, middlewares: [breaker], observer: observer, clock: clock)
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }
        clock.advance(by: .seconds(30))
        server.status.withLock { $0 = 200 }
        for _ in 0..<3 { _ = try await client.execute(Self.ping) }

        let states = observer.notifications.compactMap { if case .attemptStarted(let a) = $0 { a.annotations.circuitState } else { nil } }
        #expect(states == ["closed", "closed", "half-open", "half-open", "closed"])
        let reasons = observer.events.filter { $0.kind == .circuitTransition }.map { $0.attributes["reason"] ?? "" }
        #expect(reasons == ["failure rate 100% ≥ 50% over 2 calls", "wait of 30.0 s elapsed", "2/2 half-open probes succeeded"])
        #expect(breaker.registry.states() == ["api.example.com": .closed])
    }

    @Test func clientErrorsAndCancellationsDoNotOpenTheCircuit() async throws {
        let failure = Mutex<(any Error)?>(nil)
        let transport = MockTransport { _, _, _ in
            if let error = failure.withLock({ $0 }) { throw error }
            return RawResponse(status: .notFound)
        }
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2))
        let client = makeBreakerClient(transport, middlewares: [breaker], clock: ManualClock())
        for _ in 0..<5 { _ = try await client.execute(Self.ping) }
        failure.withLock { $0 = TransportError(.cancelled, "caller gave up") }
        for _ in 0..<5 { _ = try? await client.execute(Self.ping) }
        #expect(breaker.registry.states() == ["api.example.com": .closed])

        failure.withLock { $0 = TransportError(.connectionReset, "reset by peer") }
        for _ in 0..<2 { _ = try? await client.execute(Self.ping) }
        #expect(breaker.registry.states() == ["api.example.com": .open])
    }

    @Test func aCallerThatGaveUpDoesNotCountWhateverTheTransportThrew() async throws {
        let clock = ManualClock()
        let transport = MockTransport { _, _, context in
            try? await context.clock.sleep(for: .seconds(10))
            throw TransportError(.connectionReset, "torn down after the caller left")
        }
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 1, minimum: 1))
        let client = makeBreakerClient(transport, middlewares: [breaker], clock: clock)
        let call = Task { try await client.execute(Self.ping) }
        await clock.waitForSleepers(1)
        call.cancel()
        _ = await call.result
        #expect(breaker.registry.states() == ["api.example.com": .closed])
    }

    @Test func whatCountsAsAFailureIsConfigurable() async throws {
        var configuration = CircuitBreakerConfiguration.small(window: 2, minimum: 2)
        configuration.classify = { result in
            if case .response(let head) = result, head.status.code == 429 { return .failure }
            return CircuitBreakerConfiguration.defaultClassification(result)
        }
        let breaker = CircuitBreakerMiddleware(configuration: configuration)
        let client = makeBreakerClient(CannedTransport(RawResponse(status: .tooManyRequests)), middlewares: [breaker], clock: ManualClock())
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }
        #expect(breaker.registry.states() == ["api.example.com": .open])
    }

    @Test func slowCallsAreTimedOnTheClientsClock() async throws {
        var configuration = CircuitBreakerConfiguration.small(window: 1, minimum: 1)
        configuration.slowCallDuration = .seconds(2)
        let clock = ManualClock()
        let transport = MockTransport { _, _, context in
            try await context.clock.sleep(for: .seconds(3))
            return RawResponse(status: .ok)
        }
        let observer = InMemoryClientObserver()
        let breaker = CircuitBreakerMiddleware(configuration: configuration)
        let client = makeBreakerClient(transport, middlewares: [breaker], observer: observer, clock: clock)
        let call = Task { try await client.execute(Self.ping) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        #expect(try await call.value.status == .ok)
        #expect(observer.events.last?.attributes["reason"] == "slow-call rate 100% ≥ 100% over 1 calls (slow ≥ 2.00 s)")
    }

    @Test func halfOpenRejectsCallsWhileItsProbesAreInFlight() async throws {
        let clock = ManualClock()
        let healthy = Mutex(false)
        let transport = MockTransport { _, _, context in
            guard healthy.withLock({ $0 }) else { return RawResponse(status: .badGateway) }
            try await context.clock.sleep(for: .seconds(1))
            return RawResponse(status: .ok)
        }
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 2, minimum: 2, wait: .seconds(30), permitted: 1))
        let client = makeBreakerClient(transport, middlewares: [breaker], clock: clock)
        for _ in 0..<2 { _ = try await client.execute(Self.ping) }
        clock.advance(by: .seconds(30))
        healthy.withLock { $0 = true }

        let probe = Task { try await client.execute(Self.ping) }
        await clock.waitForSleepers(1)
        let error = await #expect(throws: ClientError.self) { try await client.execute(Self.ping) }
        #expect(error?.underlyingError as? CircuitOpenError == CircuitOpenError(key: "api.example.com", state: .halfOpen, retryAfter: nil))
        clock.advance(by: .seconds(1))
        #expect(try await probe.value.status == .ok)
        #expect(breaker.registry.states() == ["api.example.com": .closed])
    }

    @Test func aRetryPlacedOutsideSeesEveryAttemptGoThroughTheBreaker() async throws {
        let (server, clock, observer) = (Server(), ManualClock(), InMemoryClientObserver())
        let breaker = CircuitBreakerMiddleware(configuration: .small(window: 3, minimum: 3))
        let client = makeBreakerClient(server.transport, middlewares: [RetryUntilShortCircuited(maxAttempts: 10), breaker],
                                       observer: observer, clock: clock)
        let error = await #expect(throws: ClientError.self) { try await client.execute(Self.ping) }
        // Three failed attempts open the circuit; the fourth try fails fast instead of reaching the server.
        #expect(error?.underlyingError is CircuitOpenError)
        #expect(server.hits.withLock { $0 } == 3)
        #expect(observer.finishedExchanges.first?.attemptCount == 3)
        #expect(observer.finishedExchanges.first?.outcome == .shortCircuited)
    }
}

/// A stand-in for the retry middleware: tries again at once on any 5xx or error, except a short-circuit.
struct RetryUntilShortCircuited: ClientMiddleware {
    var maxAttempts: Int

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        for _ in 1..<maxAttempts {
            do {
                let response = try await next(request, body, context)
                if response.status.kind != .serverError { return response }
            } catch let error as any ShortCircuitError {
                throw error
            } catch {
                continue
            }
        }
        return try await next(request, body, context)
    }
}
