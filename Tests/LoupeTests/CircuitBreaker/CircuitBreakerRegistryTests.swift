import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct CircuitBreakerRegistryTests {
    static func request(_ url: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: URL(string: url)!)
    }

    /// Runs `count` calls for `key` that end at once with `outcome`.
    static func calls(_ count: Int, _ outcome: CallOutcome, key: String, in registry: CircuitBreakerRegistry, clock: ManualClock) async {
        for _ in 0..<count {
            guard case .proceed(let permit) = await registry.acquirePermission(for: key, clock: clock) else {
                Issue.record("call for \(key) was rejected")
                return
            }
            await registry.record(outcome, permit: permit, for: key, clock: clock)
        }
    }

    @Test func keysArePerHostByDefault() {
        let registry = CircuitBreakerRegistry()
        #expect(registry.key(for: Self.request("https://a.example.com:8443/users/1"), operation: "getUser") == "a.example.com:8443")
        #expect(registry.key(for: Self.request("https://b.example.com/users/1"), operation: "getUser") == "b.example.com")
    }

    @Test func keysCanBePerEndpointOrCustom() {
        let request = Self.request("https://a.example.com/users/1")
        #expect(CircuitBreakerRegistry(keying: .endpoint).key(for: request, operation: "getUser") == "getUser")
        let firstSegment = CircuitBreakerKeying.custom { request, _ in
            "\(request.authority ?? "")/\(request.path?.split(separator: "/").first ?? "")"
        }
        #expect(CircuitBreakerRegistry(keying: firstSegment).key(for: request, operation: "getUser") == "a.example.com/users")
    }

    @Test func eachKeyHasItsOwnBreaker() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2))
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        await Self.calls(2, .success, key: "b", in: registry, clock: clock)
        #expect(await registry.states() == ["a": .open, "b": .closed])
        #expect(await registry.acquirePermission(for: "a", clock: clock) == .reject(state: .open, retryAfter: .seconds(30)))
    }

    @Test func transitionsAreKeptInHistoryAndPublishedToListeners() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2), historyLimit: 3,
                                              now: { Date(timeIntervalSince1970: 1_000) })
        let heard = Recorded<CircuitTransitionRecord>()
        await registry.addListener { heard.append($0) }
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        clock.advance(by: .seconds(5))
        await registry.forceOpen("b")
        await registry.reset("b")
        await registry.disable("a")

        let expected = ["a: closed → open", "b: closed → forced-open", "b: forced-open → closed", "a: open → disabled"]
        #expect(heard.values.map { "\($0.key): \($0.transition.from) → \($0.transition.to)" } == expected)
        // The history keeps only the last three; times are on the clock's timeline, dates from `now`.
        let history = await registry.history()
        #expect(history.map(\.transition.to) == [.forcedOpen, .closed, .disabled])
        #expect(history.map(\.transition.at) == [.seconds(5), .seconds(5), .seconds(5)])
        #expect(history.allSatisfy { $0.date == Date(timeIntervalSince1970: 1_000) })
        #expect(await registry.history(for: "a").map(\.transition.reason) == ["disabled"])
    }

    @Test func callDurationRunsFromThePermitToTheRecordOnTheGivenClock() async {
        var configuration = CircuitBreakerConfiguration.small(window: 1, minimum: 1)
        configuration.slowCallRateThreshold = 100
        configuration.slowCallDuration = .seconds(5)
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: configuration)
        guard case .proceed(let quick) = await registry.acquirePermission(for: "a", clock: clock) else { return }
        clock.advance(by: .milliseconds(4_999))
        #expect(await registry.record(.success, permit: quick, for: "a", clock: clock) == nil)
        guard case .proceed(let slow) = await registry.acquirePermission(for: "a", clock: clock) else { return }
        clock.advance(by: .seconds(5))
        let record = await registry.record(.success, permit: slow, for: "a", clock: clock)
        #expect(record?.transition.reason == "slow-call rate 100% ≥ 100% over 1 calls (slow ≥ 5s)")
    }

    @Test func anOpenBreakerProbesOnceTheWaitHasElapsed() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2, wait: .seconds(30)))
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        clock.advance(by: .seconds(29))
        #expect(await registry.acquirePermission(for: "a", clock: clock) == .reject(state: .open, retryAfter: .seconds(1)))
        clock.advance(by: .seconds(1))
        guard case .proceed(let probe) = await registry.acquirePermission(for: "a", clock: clock) else {
            Issue.record("no probe after the wait")
            return
        }
        #expect(probe.state == .halfOpen)
        #expect(await registry.states()["a"] == .halfOpen)
        #expect(await registry.history().last?.transition.reason == "wait of 30s elapsed")
    }
}
