import Loupe
import Testing

@Suite struct CircuitBreakerStateMachineTests {
    @Test func ratesAreNotEvaluatedBeforeTheMinimumNumberOfCalls() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 10, minimum: 4))
        for second in 0..<3 { #expect(breaker.call(.failure, at: .seconds(second)) == nil) }
        let transition = breaker.call(.failure, at: .seconds(3))
        #expect(transition == CircuitTransition(from: .closed, to: .open, reason: "failure rate 100% ≥ 50% over 4 calls", at: .seconds(3)))
    }

    @Test func opensAtTheFailureRateThresholdAndRejectsWithTheTimeUntilTheProbe() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 10, minimum: 8, wait: .seconds(30)))
        for _ in 0..<4 { breaker.call(.success, at: .zero) }
        for _ in 0..<3 { breaker.call(.failure, at: .zero) }
        #expect(breaker.circuitState == .closed)  // 3 of 7: below the minimum anyway
        #expect(breaker.call(.failure, at: .seconds(1))?.reason == "failure rate 50% ≥ 50% over 8 calls")
        #expect(breaker.acquirePermission(now: .seconds(1)) == .reject(state: .open, retryAfter: .seconds(30)))
        #expect(breaker.acquirePermission(now: .seconds(21)) == .reject(state: .open, retryAfter: .seconds(10)))
    }

    @Test func staysClosedJustUnderTheThreshold() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 10, minimum: 10, failureRate: 50))
        for index in 0..<10 { breaker.call(index < 4 ? .failure : .success, at: .zero) }
        #expect(breaker.circuitState == .closed)
    }

    @Test func slowCallRateOpensEvenWhenEveryCallSucceeds() {
        var configuration = CircuitBreakerConfiguration.small(window: 4, minimum: 4)
        configuration.slowCallRateThreshold = 50
        configuration.slowCallDuration = .seconds(2)
        var breaker = CircuitBreakerStateMachine(configuration: configuration)
        breaker.call(.success, at: .zero, duration: .seconds(5))
        breaker.call(.success, at: .zero, duration: .milliseconds(1_999))  // just under: not slow
        breaker.call(.success, at: .zero, duration: .milliseconds(10))
        let transition = breaker.call(.success, at: .zero, duration: .seconds(2))  // exactly the duration: slow
        #expect(transition?.reason == "slow-call rate 50% ≥ 50% over 4 calls (slow ≥ 2.00 s)")
    }

    @Test func ignoredOutcomesAreNotCounted() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 4, minimum: 4))
        for _ in 0..<10 { breaker.call(.ignored, at: .zero) }
        for _ in 0..<3 { breaker.call(.failure, at: .zero) }
        #expect(breaker.circuitState == .closed)  // 3 counted calls, minimum 4
        #expect(breaker.call(.failure, at: .zero)?.to == .open)
    }

    @Test func theCountWindowForgetsOldCalls() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 4, minimum: 4, failureRate: 75))
        for _ in 0..<3 { breaker.call(.success, at: .zero) }
        #expect(breaker.call(.failure, at: .zero) == nil)  // S S S F: 25 %
        #expect(breaker.call(.failure, at: .zero) == nil)  // S S F F: 50 %
        #expect(breaker.call(.failure, at: .zero)?.reason == "failure rate 75% ≥ 75% over 4 calls")  // S F F F
    }

    @Test func theTimeWindowCountsOnlyTheLastSeconds() {
        var configuration = CircuitBreakerConfiguration.small(minimum: 3)
        configuration.slidingWindow = .time(seconds: 10)
        var breaker = CircuitBreakerStateMachine(configuration: configuration)
        breaker.call(.failure, at: .milliseconds(500))
        breaker.call(.failure, at: .milliseconds(1_999))
        // At 11.0 s the window is seconds 2…11: both earlier failures have slid out, so three fresh calls are needed.
        #expect(breaker.call(.failure, at: .seconds(11)) == nil)
        #expect(breaker.call(.success, at: .seconds(11)) == nil)
        #expect(breaker.call(.failure, at: .milliseconds(11_900))?.reason == "failure rate 67% ≥ 50% over 3 calls")
    }

    @Test func theTimeWindowTripsWhenTheSameCallsFallWithinIt() {
        var configuration = CircuitBreakerConfiguration.small(minimum: 3)
        configuration.slidingWindow = .time(seconds: 10)
        var breaker = CircuitBreakerStateMachine(configuration: configuration)
        breaker.call(.failure, at: .milliseconds(1_500))
        breaker.call(.success, at: .seconds(5))
        #expect(breaker.call(.failure, at: .milliseconds(10_999))?.to == .open)  // seconds 1…10 hold all three
    }

    @Test func theWaitMovesOpenToHalfOpenOnTheNextRequest() throws {
        var breaker = try Self.openBreaker(permitted: 2)
        #expect(breaker.circuitState == .open)
        let permit = try breaker.permit(at: .seconds(30))
        #expect(permit.state == .halfOpen)
        #expect(permit.transition == CircuitTransition(from: .open, to: .halfOpen, reason: "wait of 30.0 s elapsed", at: .seconds(30)))
    }

    @Test func halfOpenLetsOnlyThePermittedProbesThrough() throws {
        var breaker = try Self.openBreaker(permitted: 3)
        let probes = (0..<3).compactMap { _ in breaker.mustProceed(at: .seconds(30)) }
        #expect(probes.count == 3)
        #expect(breaker.acquirePermission(now: .seconds(31)) == .reject(state: .halfOpen, retryAfter: nil))
        // A probe that says nothing (a cancellation) gives its slot to the next call; a completed one does not.
        #expect(breaker.record(.ignored, duration: .zero, permit: probes[0], now: .seconds(31)) == nil)
        #expect(breaker.record(.success, duration: .zero, permit: probes[1], now: .seconds(31)) == nil)
        let replacement = try breaker.permit(at: .seconds(31))
        #expect(breaker.acquirePermission(now: .seconds(31)) == .reject(state: .halfOpen, retryAfter: nil))
        #expect(breaker.record(.success, duration: .zero, permit: probes[2], now: .seconds(32)) == nil)
        let closing = breaker.record(.success, duration: .zero, permit: replacement, now: .seconds(32))
        #expect(closing == CircuitTransition(from: .halfOpen, to: .closed, reason: "3/3 half-open probes succeeded", at: .seconds(32)))
    }

    @Test func closingResetsTheWindow() throws {
        var breaker = try Self.openBreaker(permitted: 1)
        breaker.call(.success, at: .seconds(30))
        #expect(breaker.circuitState == .closed)
        for _ in 0..<3 { breaker.call(.failure, at: .seconds(31)) }
        #expect(breaker.circuitState == .closed)  // the four failures before opening no longer count
        #expect(breaker.call(.failure, at: .seconds(31))?.to == .open)
    }

    @Test func halfOpenReopensAsSoonAsTheFailuresDecideIt() throws {
        var breaker = try Self.openBreaker(permitted: 4)
        let probes = (0..<4).compactMap { _ in breaker.mustProceed(at: .seconds(30)) }
        #expect(breaker.record(.failure, duration: .zero, permit: probes[0], now: .seconds(31)) == nil)
        let reopening = breaker.record(.failure, duration: .zero, permit: probes[1], now: .seconds(31))
        // 2 of 4 probes failed: 50 % whatever the last two say, so there is no point waiting for them.
        #expect(reopening?.reason == "2/4 half-open probes failed (≥ 50%)")
        #expect(breaker.acquirePermission(now: .seconds(31)) == .reject(state: .open, retryAfter: .seconds(30)))
        // The late probes belong to the previous half-open period and change nothing.
        #expect(breaker.record(.success, duration: .zero, permit: probes[2], now: .seconds(32)) == nil)
        #expect(breaker.acquirePermission(now: .seconds(60)) == .reject(state: .open, retryAfter: .seconds(1)))
    }

    @Test func halfOpenClosesWhenFailuresStayUnderTheThreshold() throws {
        var breaker = try Self.openBreaker(permitted: 3)
        breaker.call(.failure, at: .seconds(30))
        breaker.call(.success, at: .seconds(30))
        let transition = breaker.call(.success, at: .seconds(30))
        #expect(transition?.to == .closed)
        #expect(transition?.reason == "1/3 half-open probes failed, 0 slow: under the thresholds")
    }

    @Test func anOutcomeFromBeforeATransitionIsIgnored() throws {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 4, minimum: 4))
        let slowStarter = try breaker.permit(at: .zero)
        for _ in 0..<4 { breaker.call(.failure, at: .seconds(1)) }
        _ = try breaker.permit(at: .seconds(31))  // open → half-open, 1 of 2 probes taken
        // The call let through while closed ends now: it is no probe and must not close or open anything.
        #expect(breaker.record(.failure, duration: .seconds(40), permit: slowStarter, now: .seconds(40)) == nil)
        #expect(breaker.circuitState == .halfOpen)
    }

    @Test func forcedOpenRejectsEverythingUntilReset() {
        var breaker = CircuitBreakerStateMachine(configuration: .small())
        let inFlight = breaker.mustProceed(at: .zero)
        #expect(breaker.forceOpen(now: .zero)?.reason == "forced open")
        #expect(breaker.forceOpen(now: .zero) == nil)
        #expect(breaker.acquirePermission(now: .seconds(3_600)) == .reject(state: .forcedOpen, retryAfter: nil))
        if let inFlight { #expect(breaker.record(.success, duration: .zero, permit: inFlight, now: .seconds(1)) == nil) }
        #expect(breaker.circuitState == .forcedOpen)
        #expect(breaker.reset(now: .seconds(3_600)) == CircuitTransition(from: .forcedOpen, to: .closed, reason: "reset", at: .seconds(3_600)))
        #expect(breaker.mustProceed(at: .seconds(3_600))?.state == .closed)
    }

    @Test func disabledLetsEverythingThroughAndMeasuresNothing() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 2, minimum: 2))
        #expect(breaker.disable(now: .zero)?.to == .disabled)
        for _ in 0..<20 { #expect(breaker.call(.failure, at: .zero) == nil) }
        #expect(breaker.mustProceed(at: .zero)?.state == .disabled)
        #expect(breaker.reset(now: .zero)?.to == .closed)
        breaker.call(.failure, at: .zero)
        #expect(breaker.circuitState == .closed)  // none of the 20 disabled failures count
        #expect(breaker.call(.failure, at: .zero)?.to == .open)
    }

    @Test func resettingAClosedBreakerEmptiesItsWindow() {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 4, minimum: 4))
        for _ in 0..<3 { breaker.call(.failure, at: .zero) }
        #expect(breaker.reset(now: .zero) == nil)
        for _ in 0..<3 { breaker.call(.failure, at: .zero) }
        #expect(breaker.circuitState == .closed)
    }

    @Test func defaultsAreDocumented() {
        let defaults = CircuitBreakerConfiguration()
        #expect(defaults.slidingWindow == .count(100))
        #expect(defaults.minimumNumberOfCalls == 20)
        #expect(defaults.failureRateThreshold == 50)
        #expect(defaults.slowCallRateThreshold == 100)
        #expect(defaults.slowCallDuration == .seconds(60))
        #expect(defaults.waitDurationInOpen == .seconds(60))
        #expect(defaults.permittedCallsInHalfOpen == 10)
    }

    /// A breaker (count window 4, wait 30 s) opened at time zero by four failures.
    static func openBreaker(permitted: Int) throws -> CircuitBreakerStateMachine {
        var breaker = CircuitBreakerStateMachine(configuration: .small(window: 4, minimum: 4, wait: .seconds(30), permitted: permitted))
        for _ in 0..<4 { breaker.call(.failure, at: .zero) }
        try #require(breaker.circuitState == .open)
        return breaker
    }
}
