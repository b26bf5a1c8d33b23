import Foundation
import HTTPTypes
import Loupe
import Testing

@Suite struct RetryPlannerTests {
    typealias Outcome = Result<RawResponse, any Error>
    let now = RetryFixture.now

    func planner(
        _ policy: RetryPolicy = RetryFixture.constant(), _ method: HTTPRequest.Method = .get, headers: HTTPFields = [:],
        body: RequestBody? = nil, deadline: Duration? = nil, operation: String = "listItems"
    ) -> RetryPlanner {
        RetryPlanner(policy: policy, operation: operation, request: RetryFixture.request(method, headers: headers), body: body, deadline: deadline)
    }

    func status(_ code: Int, _ headers: HTTPFields = [:]) -> Outcome { .success(RetryFixture.response(code, headers: headers)) }
    func failure(_ kind: TransportError.Kind) -> Outcome { .failure(TransportError(kind, "test")) }

    @Test func successAndClientErrorsAreReturned() {
        for code in [200, 204, 304, 400, 401, 404, 409, 501] {
            var plan = planner()
            #expect(plan.attemptFinished(status(code), elapsed: .zero, now: now) == .returnResponse, "\(code)")
            #expect(plan.attempt == nil)
        }
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func defaultRetryableStatusesAreRetriedUntilAttemptsRunOut(code: Int) {
        var plan = planner()
        #expect(plan.attemptFinished(status(code), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "\(code)", source: .backoff))
        #expect(plan.attempt == 2)
        #expect(plan.attemptFinished(status(code), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "\(code)", source: .backoff))
        #expect(plan.attemptFinished(status(code), elapsed: .zero, now: now) == .giveUp(reason: "all 3 attempts used"))
    }

    @Test func customStatusesReplaceTheDefaults() {
        var plan = planner(RetryPolicy(retryableStatuses: [409], random: RetryFixture.top))
        #expect(plan.attemptFinished(status(503), elapsed: .zero, now: now) == .returnResponse)
        var conflict = planner(RetryPolicy(retryableStatuses: [409], random: RetryFixture.top))
        #expect(conflict.attemptFinished(status(409), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "409", source: .backoff))
    }

    @Test(arguments: [TransportError.Kind.connectFailed, .connectionReset, .timedOut])
    func transientTransportFailuresAreRetried(kind: TransportError.Kind) {
        var plan = planner()
        #expect(plan.attemptFinished(failure(kind), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: kind.description, source: .backoff))
    }

    @Test(arguments: [TransportError.Kind.tls, .cancelled, .other])
    func otherTransportFailuresAreRethrown(kind: TransportError.Kind) {
        var plan = planner()
        #expect(plan.attemptFinished(failure(kind), elapsed: .zero, now: now) == .rethrow)
    }

    @Test func errorsThatAreNotTransportErrorsAreRethrown() {
        var plan = planner()
        #expect(plan.attemptFinished(.failure(CancellationError()), elapsed: .zero, now: now) == .rethrow)
        var other = planner()
        #expect(other.attemptFinished(.failure(URLError(.badURL)), elapsed: .zero, now: now) == .rethrow)
    }

    @Test(arguments: [HTTPRequest.Method.get, .head, .options, .trace, .put, .delete])
    func idempotentMethodsAreRetried(method: HTTPRequest.Method) {
        var plan = planner(RetryFixture.constant(), method)
        #expect(plan.attemptFinished(status(503), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
    }

    @Test(arguments: [HTTPRequest.Method.post, .patch, .connect])
    func nonIdempotentMethodsNeedAKeyOrAnOptIn(method: HTTPRequest.Method) {
        var bare = planner(RetryFixture.constant(), method)
        #expect(bare.attemptFinished(status(503), elapsed: .zero, now: now)
            == .giveUp(reason: "\(method) is not idempotent; send an Idempotency-Key header or opt in"))
        var reset = planner(RetryFixture.constant(), method)
        #expect(reset.attemptFinished(failure(.connectionReset), elapsed: .zero, now: now)
            == .giveUp(reason: "\(method) is not idempotent; send an Idempotency-Key header or opt in"))

        var keyed = planner(RetryFixture.constant(), method, headers: [RetryPolicy.idempotencyKey: "order-17"])
        #expect(keyed.attemptFinished(status(503), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
        var optedIn = RetryFixture.constant()
        optedIn.retryNonIdempotent = true
        var opted = planner(optedIn, method)
        #expect(opted.attemptFinished(status(503), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
    }

    @Test func aBodyThatCannotBeReplayedIsNeverRetried() {
        let once = RequestBody.stream(length: 3, replayable: false) { AsyncThrowingStream { $0.finish() } }
        var plan = planner(RetryFixture.constant(), .put, body: once)
        #expect(plan.attemptFinished(status(503), elapsed: .zero, now: now) == .giveUp(reason: "the request body cannot be replayed"))
        let file = RequestBody.stream(length: 3, replayable: true) { AsyncThrowingStream { $0.finish() } }
        var replayable = planner(RetryFixture.constant(), .put, body: file)
        #expect(replayable.attemptFinished(status(503), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
    }

    @Test func retryAfterReplacesTheBackoff() {
        var seconds = planner()
        #expect(seconds.attemptFinished(status(429, [.retryAfter: "5"]), elapsed: .zero, now: now) == .retry(after: .seconds(5), reason: "429", source: .retryAfter))
        var date = planner()
        #expect(date.attemptFinished(status(503, [.retryAfter: "Tue, 14 Nov 2023 22:14:02 GMT"]), elapsed: .zero, now: now)
            == .retry(after: .seconds(42), reason: "503", source: .retryAfter))
        var garbage = planner()
        #expect(garbage.attemptFinished(status(503, [.retryAfter: "later"]), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
    }

    @Test func retryAfterOnANonRetryableStatusChangesNothing() {
        var plan = planner()
        #expect(plan.attemptFinished(status(200, [.retryAfter: "5"]), elapsed: .zero, now: now) == .returnResponse)
    }

    @Test func retryAfterAboveTheCapGivesUp() {
        var plan = planner()
        #expect(plan.attemptFinished(status(503, [.retryAfter: "61"]), elapsed: .zero, now: now) == .giveUp(reason: "Retry-After asks for 61.0 s, over the 60.0 s cap"))
        var atCap = planner()
        #expect(atCap.attemptFinished(status(503, [.retryAfter: "60"]), elapsed: .zero, now: now) == .retry(after: .seconds(60), reason: "503", source: .retryAfter))
        var tight = RetryFixture.constant()
        tight.maxRetryAfter = .milliseconds(500)
        var short = planner(tight)
        #expect(short.attemptFinished(status(503, [.retryAfter: "1"]), elapsed: .zero, now: now) == .giveUp(reason: "Retry-After asks for 1.00 s, over the 500 ms cap"))
    }

    @Test func decorrelatedJitterCarriesThePreviousDelay() {
        let policy = RetryPolicy(
            maxAttempts: 5, backoff: .exponential(base: .milliseconds(100), multiplier: 2, cap: .seconds(1)), jitter: .decorrelated,
            random: RetryFixture.top)
        var plan = planner(policy)
        var delays: [Duration] = []
        while case .retry(let delay, _, _) = plan.attemptFinished(status(503), elapsed: .zero, now: now) { delays.append(delay) }
        #expect(delays == [300, 900, 1000, 1000].map { Duration.milliseconds($0) })
    }

    @Test func exponentialFullJitterThroughThePlanner() {
        let policy = RetryPolicy(maxAttempts: 4, backoff: .exponential(base: .milliseconds(200), multiplier: 2, cap: .seconds(1)), jitter: .full, random: RetryFixture.middle)
        var plan = planner(policy)
        var delays: [Duration] = []
        while case .retry(let delay, _, _) = plan.attemptFinished(failure(.timedOut), elapsed: .zero, now: now) { delays.append(delay) }
        #expect(delays == [100, 200, 400].map { Duration.milliseconds($0) })
    }

    @Test func noWaitThatWouldPassTheDeadlineIsStarted() {
        var plan = planner(RetryFixture.constant(.seconds(1), attempts: 10), deadline: .milliseconds(2_500))
        #expect(plan.attemptFinished(status(503), elapsed: .milliseconds(1_400), now: now) == .retry(after: .seconds(1), reason: "503", source: .backoff))
        #expect(plan.attemptFinished(status(503), elapsed: .milliseconds(1_500), now: now) == .giveUp(reason: "waiting 1.00 s would pass the 2.50 s deadline"))
    }

    @Test func aRetryAfterBeyondTheDeadlineGivesUp() {
        var plan = planner(deadline: .seconds(10))
        #expect(plan.attemptFinished(status(503, [.retryAfter: "30"]), elapsed: .seconds(1), now: now) == .giveUp(reason: "waiting 30.0 s would pass the 10.0 s deadline"))
    }

    @Test func theTimeoutShrinksToTheTimeLeft() {
        let plan = planner(deadline: .seconds(5))
        #expect(plan.timeout(configured: .seconds(2), elapsed: .zero) == .seconds(2))
        #expect(plan.timeout(configured: .seconds(2), elapsed: .milliseconds(3_500)) == .milliseconds(1_500))
        #expect(plan.timeout(configured: nil, elapsed: .seconds(1)) == .seconds(4))
        #expect(plan.timeout(configured: .seconds(2), elapsed: .seconds(9)) == .zero)
        #expect(planner().timeout(configured: .seconds(2), elapsed: .seconds(100)) == .seconds(2))
    }
}

@Suite struct RetryDeciderTests {
    let now = RetryFixture.now

    func planner(_ decide: @escaping @Sendable (RetryContext) -> RetryDecision?, _ method: HTTPRequest.Method = .get,
                 operation: String = "listItems", body: RequestBody? = nil) -> RetryPlanner {
        RetryPlanner(policy: RetryFixture.constant(decide: decide), operation: operation, request: RetryFixture.request(method), body: body)
    }

    @Test func declineOverridesARetryableOutcome() {
        var plan = planner { _ in .doNotRetry }
        #expect(plan.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) == .giveUp(reason: "the decider declined to retry 503"))
        var success = planner { _ in .doNotRetry }
        #expect(success.attemptFinished(.success(RetryFixture.response(200)), elapsed: .zero, now: now) == .returnResponse)
    }

    @Test func anExplicitDelayRetriesWhatTheDefaultsWouldNot() {
        var plan = planner { $0.response?.status.code == 409 ? .retry(after: .milliseconds(30)) : nil }
        #expect(plan.attemptFinished(.success(RetryFixture.response(409)), elapsed: .zero, now: now) == .retry(after: .milliseconds(30), reason: "409", source: .decider))
        #expect(plan.attemptFinished(.success(RetryFixture.response(404)), elapsed: .zero, now: now) == .returnResponse)
    }

    @Test func thePolicyDelayCanBeChosenForAnyError() {
        var plan = planner { $0.transportErrorKind == .tls ? .retryWithPolicyDelay : nil }
        #expect(plan.attemptFinished(.failure(TransportError(.tls, "handshake")), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "TLS failure", source: .backoff))
    }

    @Test func decisionsArePerEndpoint() {
        let decide: @Sendable (RetryContext) -> RetryDecision? = { $0.operation == "createOrder" ? .retryWithPolicyDelay : .doNotRetry }
        var orders = planner(decide, .post, operation: "createOrder")
        #expect(orders.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) == .retry(after: .milliseconds(100), reason: "503", source: .backoff))
        var others = planner(decide, .get, operation: "listItems")
        #expect(others.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) == .giveUp(reason: "the decider declined to retry 503"))
    }

    @Test func theDeciderSeesTheAttemptAndElapsedTime() {
        let seen = Recorded<String>()
        var plan = planner { context in
            seen.append("\(context.operation) \(context.request.method) #\(context.attempt) \(context.response?.status.code ?? 0) \(context.elapsed)")
            return nil
        }
        _ = plan.attemptFinished(.success(RetryFixture.response(503)), elapsed: .seconds(1), now: now)
        _ = plan.attemptFinished(.success(RetryFixture.response(200)), elapsed: .seconds(2), now: now)
        #expect(seen.values == ["listItems GET #1 503 1.0 seconds", "listItems GET #2 200 2.0 seconds"])
    }

    @Test func theDeciderCannotBreakTheHardLimits() {
        let once = RequestBody.stream(length: nil, replayable: false) { AsyncThrowingStream { $0.finish() } }
        var body = planner({ _ in .retry(after: .zero) }, .put, body: once)
        #expect(body.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) == .giveUp(reason: "the request body cannot be replayed"))
        var attempts = planner { _ in .retry(after: .zero) }
        for _ in 1...2 { _ = attempts.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) }
        #expect(attempts.attemptFinished(.success(RetryFixture.response(503)), elapsed: .zero, now: now) == .giveUp(reason: "all 3 attempts used"))
    }
}
