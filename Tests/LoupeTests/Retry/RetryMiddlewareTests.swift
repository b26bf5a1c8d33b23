import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct RetryMiddlewareTests {
    let clock = ManualClock()
    let observer = InMemoryClientObserver()

    func client(_ transport: any ClientTransport, _ middleware: RetryMiddleware, timeout: Duration? = nil) -> Client {
        RetryFixture.client(transport, middlewares: [middleware], clock: clock, observer: observer, timeout: timeout)
    }

    @Test func retriesUntilSuccessWaitingOnTheClientsClock() async throws {
        let transport = ScriptedTransport([.status(503), .status(503), .status(200, body: Data("ok".utf8))])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.milliseconds(250))))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        #expect(transport.requests.count == 1)
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers(1)
        #expect(transport.requests.count == 2)
        clock.advance(by: .milliseconds(250))
        let response = try await task.value

        #expect(response.status == .ok)
        #expect(response.value == Data("ok".utf8))
        #expect(response.attempts.map(\.status) == [503, 503, 200])
        #expect(clock.requestedSleeps == [.milliseconds(250), .milliseconds(250)])
        let annotations = RetryFixture.annotations(observer)
        #expect(annotations.map(\.retryReason) == [nil, "503", "503"])
        #expect(annotations.map(\.retryDelay) == [nil, .milliseconds(250), .milliseconds(250)])
        #expect(observer.events.map(\.kind) == [.retryScheduled, .retryScheduled])
        #expect(observer.events.map(\.attributes) == [
            ["attempt": "2", "delayMs": "250", "reason": "503", "source": "backoff"],
            ["attempt": "3", "delayMs": "250", "reason": "503", "source": "backoff"],
        ])
        #expect(observer.events.first?.message == "Retrying after 503 in 250 ms (backoff)")
    }

    @Test(arguments: zip(
        ["7", "Tue, 14 Nov 2023 22:14:02 GMT", "Tuesday, 14-Nov-23 22:14:02 GMT", "Tue Nov 14 22:14:02 2023"],
        [7, 42, 42, 42]))
    func retryAfterIsObeyedExactly(header: String, seconds: Int) async throws {
        let transport = ScriptedTransport([.status(503, headers: [.retryAfter: header]), .status(200)])
        let client = client(transport, RetryMiddleware(policy: RetryPolicy(random: RetryFixture.top)))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(seconds)])
        clock.advance(by: .seconds(seconds - 1))
        #expect(clock.sleeperCount == 1, "still waiting one second before the server's time")
        #expect(transport.requests.count == 1)
        clock.advance(by: .seconds(1))
        let response = try await task.value
        #expect(response.status == .ok)
        #expect(observer.events.first?.attributes["source"] == "retry-after")
        #expect(observer.events.first?.attributes["delayMs"] == "\(seconds * 1000)")
    }

    @Test func aRetryAfterAboveTheCapGivesUpInsteadOfWaiting() async throws {
        let transport = ScriptedTransport([.status(503, headers: [.retryAfter: "3600"]), .status(200)])
        let response = try await client(transport, RetryMiddleware()).execute(RetryFixture.request())
        #expect(response.status.code == 503)
        #expect(transport.requests.count == 1)
        #expect(clock.requestedSleeps.isEmpty)
        #expect(observer.events.map(\.kind) == [.retryGivenUp])
        #expect(observer.events.first?.attributes == ["attempt": "1", "outcome": "503", "reason": "Retry-After asks for 60 min, over the 60.0 s cap"])
    }

    @Test func postIsNeverRetriedWithoutAKey() async throws {
        let transport = ScriptedTransport([.status(503)])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero)))
        let response = try await client.execute(RetryFixture.request(.post), body: .string(#"{"item":"lens"}"#))
        #expect(response.status.code == 503)
        #expect(transport.requests.count == 1)
        #expect(observer.events.first?.attributes["reason"] == "POST is not idempotent; send an Idempotency-Key header or opt in")

        let typed = await #expect(throws: ClientError.self) { try await client.send(CreateUser(user: User(id: 1, name: "Ada"))) }
        #expect(typed?.response?.status.code == 503)
        #expect(transport.requests.count == 2)
    }

    @Test func postWithAnIdempotencyKeyIsRetried() async throws {
        let transport = ScriptedTransport([.status(503), .status(201)])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero)))
        let request = RetryFixture.request(.post, headers: [RetryPolicy.idempotencyKey: "order-17"])
        let response = try await client.execute(request, body: .string(#"{"item":"lens"}"#))
        #expect(response.status.code == 201)
        #expect(transport.requests.map { $0.headerFields[RetryPolicy.idempotencyKey] } == ["order-17", "order-17"])
    }

    @Test func aBodyThatCannotBeReplayedIsSentOnce() async throws {
        let transport = ScriptedTransport([.status(503), .status(200)])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero)))
        let socket = RequestBody.stream(length: 4, replayable: false) { AsyncThrowingStream { $0.yield(Data("data".utf8)); $0.finish() } }
        let response = try await client.execute(RetryFixture.request(.put), body: socket)
        #expect(response.status.code == 503)
        #expect(transport.requests.count == 1)
        #expect(observer.events.first?.attributes["reason"] == "the request body cannot be replayed")
    }

    @Test func transientTransportFailuresAreRetriedThenRethrown() async throws {
        let transport = ScriptedTransport([.error(TransportError(.connectionReset, "peer reset")), .error(TransportError(.timedOut, "slow"))])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero)))
        let error = await #expect(throws: ClientError.self) { try await client.execute(RetryFixture.request()) }
        #expect(error?.stage == .transport)
        #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)
        #expect(transport.requests.count == 3)
        #expect(RetryFixture.annotations(observer).map(\.retryReason) == [nil, "connection reset", "timed out"])
        #expect(observer.events.map(\.kind) == [.retryScheduled, .retryScheduled, .retryGivenUp])
        #expect(observer.events.last?.attributes == ["attempt": "3", "outcome": "timed out", "reason": "all 3 attempts used"])
    }

    @Test func tlsFailuresAreNotRetried() async throws {
        let transport = ScriptedTransport([.error(TransportError(.tls, "certificate pin mismatch"))])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero)))
        let error = await #expect(throws: ClientError.self) { try await client.execute(RetryFixture.request()) }
        #expect((error?.underlyingError as? TransportError)?.kind == .tls)
        #expect(transport.requests.count == 1)
        #expect(observer.events.isEmpty)
    }

    @Test func theDeciderChoosesPerEndpoint() async throws {
        let transport = ScriptedTransport([.status(503)])
        let policy = RetryFixture.constant(.zero) { $0.operation == "inventory" ? .doNotRetry : nil }
        let client = client(transport, RetryMiddleware(policy: policy))
        _ = try await client.execute(RetryFixture.request(), options: RequestOptions(operation: "inventory"))
        #expect(transport.requests.count == 1)
        #expect(observer.events.last?.attributes["reason"] == "the decider declined to retry 503")
        _ = try await client.execute(RetryFixture.request(), options: RequestOptions(operation: "catalogue"))
        #expect(transport.requests.count == 4)
    }

    @Test func theDeadlineBoundsRetriesAndShrinksTimeouts() async throws {
        let timeouts = Recorded<Duration?>()
        let transport = MockTransport { _, _, context in
            timeouts.append(context.timeout)
            return RetryFixture.response(503)
        }
        let middleware = RetryMiddleware(policy: RetryFixture.constant(.seconds(1), attempts: 10), deadline: .milliseconds(2_500))
        let client = client(transport, middleware, timeout: .seconds(2))
        let task = Task { try await client.execute(RetryFixture.request()) }
        for _ in 1...2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        let response = try await task.value
        #expect(response.status.code == 503)
        #expect(timeouts.values == [.seconds(2), .milliseconds(1_500), .milliseconds(500)])
        #expect(clock.requestedSleeps == [.seconds(1), .seconds(1)])
        #expect(observer.events.last?.attributes["reason"] == "waiting 1.00 s would pass the 2.50 s deadline")
    }

    @Test func aSlowAttemptCannotOutliveTheDeadline() async throws {
        let transport = ScriptedTransport([.delay(.seconds(30), then: .status(200))], clock: clock)
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(), deadline: .seconds(3)))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        let error = await #expect(throws: ClientError.self) { try await task.value }
        #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)
        #expect(clock.requestedSleeps == [.seconds(3)])
        #expect(transport.requests.count == 1)
        #expect(observer.events.last?.attributes["reason"] == "waiting 100 ms would pass the 3.00 s deadline")
    }

    @Test func cancellingTheCallerEndsTheWaitAtOnce() async throws {
        let transport = ScriptedTransport([.status(503)])
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.seconds(600))))
        let task = Task { try await client.execute(RetryFixture.request()) }
        await clock.waitForSleepers(1)
        task.cancel()
        guard let error = await clientError(of: task) else { return }
        #expect(error.stage == .cancelled)
        #expect(error.underlyingError is CancellationError)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == ManualClock.Instant(offset: .zero), "ended without the clock moving")
        #expect(transport.requests.count == 1)
        #expect(observer.finishedExchanges.first?.outcome == .cancelled)
    }

    @Test func anExhaustedBudgetReturnsTheLastResponseAndSaysSo() async throws {
        let transport = ScriptedTransport([.status(503)])
        let budget = RetryBudget(ratio: 0, minimumRetries: 1, clock: clock)
        let client = client(transport, RetryMiddleware(policy: RetryFixture.constant(.zero, attempts: 5), budget: budget))
        let response = try await client.execute(RetryFixture.request())
        #expect(response.status.code == 503)
        #expect(transport.requests.count == 2)
        #expect(observer.events.map(\.kind) == [.retryScheduled, .retryGivenUp])
        #expect(observer.events.last?.attributes == [
            "attempt": "2", "outcome": "503", "reason": "retry budget exhausted", "budgetRetries": "1", "budgetAllowance": "1",
        ])
        #expect(budget.totals == (requests: 1, retries: 1))
    }
}
