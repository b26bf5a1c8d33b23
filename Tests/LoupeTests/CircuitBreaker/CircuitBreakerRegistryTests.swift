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
            guard case .proceed(let permit) = registry.acquirePermission(for: key, clock: clock) else {
                Issue.record("call for \(key) was rejected")
                return
            }
            registry.record(outcome, permit: permit, for: key, clock: clock)
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
        #expect(registry.states() == ["a": .open, "b": .closed])
        #expect(registry.acquirePermission(for: "a", clock: clock) == .reject(state: .open, retryAfter: .seconds(30)))
    }

    /// The middleware's path (DECISIONS 25): one look-up by key claims the first use and asks, and the outcome goes
    /// back by slot. A key whose breaker was made by a manual change still has its first call; slots made out of
    /// call order still reach their own breakers.
    @Test func admitClaimsEachKeysFirstCallOnceAndOutcomesGoBackBySlot() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2))
        registry.forceOpen("b")
        let b = registry.admit("b", clock: clock)
        #expect(b.firstUse)
        guard case .reject(state: .forcedOpen, _) = b.action else {
            Issue.record("a forced-open breaker let a call through: \(b.action)")
            return
        }
        #expect(!registry.admit("b", clock: clock).firstUse)
        for call in 0..<2 {
            let a = registry.admit("a", clock: clock)
            #expect(a.firstUse == (call == 0))
            #expect(a.slot != b.slot)
            guard case .proceed(let permit) = a.action else {
                Issue.record("call for a was rejected")
                return
            }
            registry.record(.failure, permit: permit, slot: a.slot, key: "a", clock: clock)
        }
        await Self.calls(2, .success, key: "c", in: registry, clock: clock)
        #expect(registry.states() == ["a": .open, "b": .forcedOpen, "c": .closed])
        #expect(registry.history(for: "a").map(\.transition.to) == [.open])
        #expect(registry.acquirePermission(for: "a", clock: clock) == .reject(state: .open, retryAfter: .seconds(30)))
    }

    @Test func transitionsAreKeptInHistoryAndPublishedToListeners() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2), historyLimit: 3,
                                              now: { Date(timeIntervalSince1970: 1_000) })
        let heard = Recorded<CircuitTransitionRecord>()
        registry.addListener { heard.append($0) }
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        clock.advance(by: .seconds(5))
        registry.forceOpen("b")
        registry.reset("b")
        registry.disable("a")

        let expected = ["a: closed → open", "b: closed → forced-open", "b: forced-open → closed", "a: open → disabled"]
        #expect(heard.values.map { "\($0.key): \($0.transition.from) → \($0.transition.to)" } == expected)
        // The history keeps only the last three; times are on the clock's timeline, dates from `now`.
        let history = registry.history()
        #expect(history.map(\.transition.to) == [.forcedOpen, .closed, .disabled])
        #expect(history.map(\.transition.at) == [.seconds(5), .seconds(5), .seconds(5)])
        #expect(history.allSatisfy { $0.date == Date(timeIntervalSince1970: 1_000) })
        #expect(registry.history(for: "a").map(\.transition.reason) == ["disabled"])
    }

    @Test func aListenerMayCallBackInAndStillHearsEverythingInOrder() async {
        // The registry is a lock, not an actor: a listener runs outside it, so calling back in neither deadlocks
        // nor reorders what the listeners hear.
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2))
        let heard = Recorded<String>()
        registry.addListener { record in
            heard.append("\(record.key): \(record.transition.to) (states: \(registry.states().count))")
            if record.key == "a", record.transition.to == .open { registry.forceOpen("b") }
        }
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        registry.reset("a")
        #expect(heard.values == ["a: open (states: 1)", "b: forced-open (states: 2)", "a: closed (states: 2)"])
    }

    @Test func concurrentTransitionsReachListenersInHistoryOrder() async {
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2), historyLimit: 10_000)
        let heard = Recorded<CircuitTransitionRecord>()
        registry.addListener { heard.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        let key = "k\(task)-\(round % 3)"
                        registry.forceOpen(key)
                        registry.reset(key)
                    }
                }
            }
        }
        #expect(heard.values.count == 800)
        #expect(heard.values == registry.history())
    }

    @Test func callDurationRunsFromThePermitToTheRecordOnTheGivenClock() async {
        var configuration = CircuitBreakerConfiguration.small(window: 1, minimum: 1)
        configuration.slowCallRateThreshold = 100
        configuration.slowCallDuration = .seconds(5)
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: configuration)
        guard case .proceed(let quick) = registry.acquirePermission(for: "a", clock: clock) else { return }
        clock.advance(by: .milliseconds(4_999))
        #expect(registry.record(.success, permit: quick, for: "a", clock: clock) == nil)
        guard case .proceed(let slow) = registry.acquirePermission(for: "a", clock: clock) else { return }
        clock.advance(by: .seconds(5))
        let record = registry.record(.success, permit: slow, for: "a", clock: clock)
        #expect(record?.transition.reason == "slow-call rate 100% ≥ 100% over 1 calls (slow ≥ 5.00 s)")
    }

    @Test func anOpenBreakerProbesOnceTheWaitHasElapsed() async {
        let clock = ManualClock()
        let registry = CircuitBreakerRegistry(configuration: .small(window: 2, minimum: 2, wait: .seconds(30)))
        await Self.calls(2, .failure, key: "a", in: registry, clock: clock)
        clock.advance(by: .seconds(29))
        #expect(registry.acquirePermission(for: "a", clock: clock) == .reject(state: .open, retryAfter: .seconds(1)))
        clock.advance(by: .seconds(1))
        guard case .proceed(let probe) = registry.acquirePermission(for: "a", clock: clock) else {
            Issue.record("no probe after the wait")
            return
        }
        #expect(probe.state == .halfOpen)
        #expect(registry.states()["a"] == .halfOpen)
        #expect(registry.history().last?.transition.reason == "wait of 30.0 s elapsed")
    }
}
