import Foundation
@testable import Loupe
import Testing

/// The pure refresh logic, step by step: no tasks, no clocks.
@Suite struct TokenRefreshStateMachineTests {
    typealias Machine = TokenRefreshStateMachine
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A machine whose current credential is generation 1 (`t1`).
    func loaded(limit: TokenRefreshLimit = TokenRefreshLimit(), leeway: Duration = .zero, expiresAt: Date? = nil) -> Machine {
        var machine = Machine(limit: limit, leeway: leeway)
        guard case .startRefreshAndWait(let round) = machine.credentialForRequest(waiter: 1, now: t0) else {
            Issue.record("the first request must load the initial credential")
            return machine
        }
        _ = machine.refreshSucceeded(Credential(token: "t1", expiresAt: expiresAt), round: round.id)
        return machine
    }

    @Test func theFirstRequestLoadsOthersWaitAndAllGetGenerationOne() throws {
        var machine = Machine(limit: TokenRefreshLimit(), leeway: .zero)
        guard case .startRefreshAndWait(let round) = machine.credentialForRequest(waiter: 1, now: t0) else {
            Issue.record("expected a round to start")
            return
        }
        #expect(round.trigger == .initial && round.replacing == nil)
        guard case .wait(let joined) = machine.credentialForRequest(waiter: 2, now: t0) else {
            Issue.record("expected the second request to wait")
            return
        }
        #expect(joined == round)
        #expect(machine.waitingCount == 2)
        let completion = machine.refreshSucceeded(Credential(token: "t1"), round: round.id)
        let (adopted, waiters) = try #require(completion)
        #expect(adopted.generation == 1 && adopted.token == "t1")
        #expect(waiters == [1, 2])
        guard case .use(let credential) = machine.credentialForRequest(waiter: 3, now: t0) else {
            Issue.record("expected the loaded credential to be used")
            return
        }
        #expect(credential == adopted)
    }

    @Test func a401OnTheCurrentGenerationStartsOneRoundOthersWait() throws {
        var machine = loaded()
        guard case .startRefreshAndWait(let round) = machine.credentialAfterRejection(of: 1, waiter: 10, now: t0) else {
            Issue.record("expected a refresh")
            return
        }
        #expect(round.trigger == .rejected(generation: 1) && round.replacing?.generation == 1)
        for waiter in 11...20 as ClosedRange<UInt64> {
            guard case .wait = machine.credentialAfterRejection(of: 1, waiter: waiter, now: t0) else {
                Issue.record("expected waiter \(waiter) to join the round")
                return
            }
        }
        // New requests arriving meanwhile wait too rather than send a credential being replaced.
        guard case .wait = machine.credentialForRequest(waiter: 21, now: t0) else {
            Issue.record("expected a new request to wait")
            return
        }
        let completion = machine.refreshSucceeded(Credential(token: "t2"), round: round.id)
        let (adopted, waiters) = try #require(completion)
        #expect(adopted.generation == 2)
        #expect(waiters == Array(10...21))
    }

    @Test func a401OnAnOlderGenerationUsesTheCurrentOneWithoutARound() throws {
        var machine = loaded()
        guard case .startRefreshAndWait(let round) = machine.credentialAfterRejection(of: 1, waiter: 2, now: t0) else {
            Issue.record("expected a refresh")
            return
        }
        _ = machine.refreshSucceeded(Credential(token: "t2"), round: round.id)
        guard case .use(let credential) = machine.credentialAfterRejection(of: 1, waiter: 3, now: t0) else {
            Issue.record("a stale 401 must not refresh")
            return
        }
        #expect(credential.generation == 2 && credential.token == "t2")
    }

    @Test func aFailedRoundFailsItsWaitersAndLateStale401sWithTheSameError() throws {
        var machine = loaded()
        guard case .startRefreshAndWait(let round) = machine.credentialAfterRejection(of: 1, waiter: 2, now: t0) else {
            Issue.record("expected a refresh")
            return
        }
        _ = machine.credentialAfterRejection(of: 1, waiter: 3, now: t0)
        let completion = machine.refreshFailed(AuthFixture.ProviderFailure(round: 1), round: round.id)
        let (error, waiters) = try #require(completion)
        #expect(waiters == [2, 3])
        #expect(error.reason == .refreshFailed && error.round == round.id && error.rejectedGeneration == 1)
        #expect(error.underlyingError as? AuthFixture.ProviderFailure == AuthFixture.ProviderFailure(round: 1))
        guard case .fail(let late) = machine.credentialAfterRejection(of: 1, waiter: 4, now: t0) else {
            Issue.record("a 401 sent before the failure must share it, not start a storm")
            return
        }
        #expect(late.round == error.round)
        // A request that starts after the failure tries again: the credential is known to be bad, so it refreshes
        // before sending.
        guard case .startRefreshAndWait(let retry) = machine.credentialForRequest(waiter: 5, now: t0) else {
            Issue.record("expected a new round for a new request")
            return
        }
        #expect(retry.trigger == .previousFailure(generation: 1) && retry.id == round.id + 1)
    }

    @Test func expiryWithinTheLeewayRefreshesBeforeSending() {
        var machine = loaded(leeway: .seconds(10), expiresAt: t0.addingTimeInterval(60))
        guard case .use = machine.credentialForRequest(waiter: 2, now: t0.addingTimeInterval(49)) else {
            Issue.record("11 s left is outside a 10 s leeway")
            return
        }
        guard case .startRefreshAndWait(let round) = machine.credentialForRequest(waiter: 3, now: t0.addingTimeInterval(50))
        else {
            Issue.record("10 s left is within the leeway")
            return
        }
        #expect(round.trigger == .expired(generation: 1))
    }

    @Test func theLimitStopsTheSixthRefreshInAWindowAndTheWindowSlides() throws {
        var machine = loaded(limit: TokenRefreshLimit(maxRefreshes: 5, window: .seconds(30)))
        var waiter: UInt64 = 100
        for round in 1...5 {
            waiter += 1
            let now = t0.addingTimeInterval(Double(round))
            guard case .startRefreshAndWait(let started) = machine.credentialAfterRejection(of: round, waiter: waiter, now: now)
            else {
                Issue.record("refresh \(round) is within the limit")
                return
            }
            _ = machine.refreshSucceeded(Credential(token: "t\(round + 1)"), round: started.id)
        }
        guard case .fail(let error) = machine.credentialAfterRejection(of: 6, waiter: 200, now: t0.addingTimeInterval(10)) else {
            Issue.record("the sixth refresh within 30 s must be refused")
            return
        }
        #expect(error.reason == .limitExceeded && error.underlyingError == nil && error.rejectedGeneration == 6)
        // 31 s after the first refresh it has left the window: one more is allowed.
        guard case .startRefreshAndWait = machine.credentialForRequest(waiter: 201, now: t0.addingTimeInterval(31)) else {
            Issue.record("the window slides")
            return
        }
    }

    @Test func theInitialLoadDoesNotCountTowardsTheLimit() {
        var machine = loaded(limit: TokenRefreshLimit(maxRefreshes: 1, window: .seconds(30)))
        guard case .startRefreshAndWait = machine.credentialAfterRejection(of: 1, waiter: 2, now: t0) else {
            Issue.record("one refresh is allowed after the initial load")
            return
        }
    }

    @Test func aCancelledWaiterLeavesAndTheRoundGoesOn() throws {
        var machine = loaded()
        guard case .startRefreshAndWait(let round) = machine.credentialAfterRejection(of: 1, waiter: 2, now: t0) else {
            Issue.record("expected a refresh")
            return
        }
        _ = machine.credentialAfterRejection(of: 1, waiter: 3, now: t0)
        #expect(machine.cancel(2) == round)
        #expect(machine.cancel(2) == nil)
        #expect(machine.cancel(99) == nil)
        let completion = machine.refreshSucceeded(Credential(token: "t2"), round: round.id)
        let (_, waiters) = try #require(completion)
        #expect(waiters == [3])
    }

    @Test func aCompletionForAnotherRoundIsIgnored() {
        var machine = loaded()
        guard case .startRefreshAndWait(let round) = machine.credentialAfterRejection(of: 1, waiter: 2, now: t0) else {
            Issue.record("expected a refresh")
            return
        }
        #expect(machine.refreshSucceeded(Credential(token: "x"), round: round.id + 1) == nil)
        #expect(machine.refreshFailed(AuthFixture.ProviderFailure(round: 0), round: round.id - 1) == nil)
        #expect(machine.waitingCount == 1)
    }
}
