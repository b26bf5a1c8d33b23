import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct RetryBudgetStateTests {
    @Test func aQuietClientMayStillRetryTheMinimum() {
        var budget = RetryBudgetState()
        for _ in 1...3 { #expect(budget.retryRequested(at: .zero) == .retry) }
        #expect(budget.retryRequested(at: .zero) == .exhausted(retries: 3, allowance: 3))
    }

    @Test func retriesAreCappedAtTheRatioOfRequests() {
        var budget = RetryBudgetState(ratio: 0.2, minimumRetries: 3)
        for _ in 1...100 { budget.requestStarted(at: .zero) }
        for _ in 1...20 { #expect(budget.retryRequested(at: .zero) == .retry) }
        #expect(budget.retryRequested(at: .zero) == .exhausted(retries: 20, allowance: 20))
        #expect(budget.totals(at: .zero) == (requests: 100, retries: 20))
    }

    @Test func oldTrafficLeavesTheWindowSliceBySlice() {
        var budget = RetryBudgetState(ratio: 0.2, minimumRetries: 3, window: .seconds(10))
        for _ in 1...50 { budget.requestStarted(at: .zero) }
        for _ in 1...50 { budget.requestStarted(at: .seconds(5)) }
        for _ in 1...20 { #expect(budget.retryRequested(at: .seconds(5)) == .retry) }
        #expect(budget.retryRequested(at: .milliseconds(9_999)) == .exhausted(retries: 20, allowance: 20))
        // At 10 s the first 50 requests have left; the 20 retries made at 5 s have not.
        #expect(budget.retryRequested(at: .seconds(10)) == .exhausted(retries: 20, allowance: 10))
        #expect(budget.totals(at: .seconds(15)) == (requests: 0, retries: 0))
        #expect(budget.retryRequested(at: .seconds(15)) == .retry)
    }

    @Test func aReusedSliceStartsFromZero() {
        var budget = RetryBudgetState(ratio: 1, minimumRetries: 0, window: .seconds(10))
        for _ in 1...5 { budget.requestStarted(at: .milliseconds(500)) }
        // 20.5 s falls in the same ring position as 0.5 s: the old counts must not leak into it.
        budget.requestStarted(at: .milliseconds(20_500))
        #expect(budget.totals(at: .milliseconds(20_500)) == (requests: 1, retries: 0))
    }
}

@Suite struct RetryBudgetOutageTests {
    static let requests = 1_000

    func outage(budget: RetryBudget?, clock: ManualClock) -> (Client, ScriptedTransport) {
        let transport = ScriptedTransport([.status(503)])
        let policy = RetryPolicy(maxAttempts: 3, backoff: .none, jitter: .none)
        let client = RetryFixture.client(transport, middlewares: [RetryMiddleware(policy: policy, budget: budget)], clock: clock)
        return (client, transport)
    }

    @Test func sequentialRequestsUnderATotalOutageAddAtMostTwentyPercent() async throws {
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let transport = ScriptedTransport([.status(503)])
        let middleware = RetryMiddleware(policy: RetryPolicy(backoff: .none, jitter: .none), budget: RetryBudget(clock: clock))
        let client = RetryFixture.client(transport, middlewares: [middleware], clock: clock, observer: observer)
        for _ in 0..<Self.requests { _ = try await client.execute(RetryFixture.request()) }
        let attempts = transport.requests.count
        #expect(Double(attempts) <= 1.2 * Double(Self.requests))
        // Sequentially the budget is used to the last token: exactly 20 % of 1,000.
        #expect(attempts == 1_200)
        #expect(observer.events.contains { $0.kind == .retryGivenUp && $0.attributes["reason"] == "retry budget exhausted" })
    }

    @Test func concurrentRequestsUnderATotalOutageAddAtMostTwentyPercent() async throws {
        let clock = ManualClock()
        let (client, transport) = outage(budget: RetryBudget(clock: clock), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.requests {
                group.addTask { _ = try await client.execute(RetryFixture.request()) }
            }
            try await group.waitForAll()
        }
        let attempts = transport.requests.count
        #expect(attempts > Self.requests, "the budget allows some retries")
        #expect(Double(attempts) <= 1.2 * Double(Self.requests))
    }

    @Test func withoutABudgetTheOutageTriplesTheTraffic() async throws {
        let clock = ManualClock()
        let (client, transport) = outage(budget: nil, clock: clock)
        for _ in 0..<Self.requests { _ = try await client.execute(RetryFixture.request()) }
        #expect(transport.requests.count == 3 * Self.requests)
    }

    @Test func theBudgetRecoversAsTheWindowMovesOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(ratio: 0.2, minimumRetries: 3, window: .seconds(10), clock: clock)
        for _ in 1...10 { budget.requestStarted() }
        for _ in 1...3 { #expect(budget.retryRequested() == .retry) }
        #expect(budget.retryRequested() == .exhausted(retries: 3, allowance: 3))
        clock.advance(by: .seconds(10))
        #expect(budget.totals == (requests: 0, retries: 0))
        #expect(budget.retryRequested() == .retry)
    }
}
