// Drives the real state machine and the reference model with the same random call sequence and lists every
// point where they disagree (permission, retry-after, transition, state).
import Loupe

/// A random breaker configuration, small enough that sequences reach every state.
struct BreakerScenario: Sendable, CustomStringConvertible {
    var windowIsCount: Bool
    var windowSize: Int
    var minimumCalls: Int
    var failureThreshold: Int
    var slowThreshold: Int
    var slowDuration: Duration
    var wait: Duration
    var permitted: Int

    var configuration: CircuitBreakerConfiguration {
        var configuration = CircuitBreakerConfiguration()
        configuration.slidingWindow = windowIsCount ? .count(windowSize) : .time(seconds: windowSize)
        configuration.minimumNumberOfCalls = minimumCalls
        configuration.failureRateThreshold = Double(failureThreshold)
        configuration.slowCallRateThreshold = Double(slowThreshold)
        configuration.slowCallDuration = slowDuration
        configuration.waitDurationInOpen = wait
        configuration.permittedCallsInHalfOpen = permitted
        return configuration
    }

    func model(_ mutation: ReferenceCircuitBreaker.Mutation) -> ReferenceCircuitBreaker {
        var model = ReferenceCircuitBreaker(
            windowIsCount: windowIsCount, windowSize: windowSize, minimumCalls: minimumCalls,
            failureThreshold: failureThreshold, slowThreshold: slowThreshold, slowDuration: slowDuration,
            wait: wait, permitted: permitted)
        model.mutation = mutation
        return model
    }

    var description: String {
        "\(windowIsCount ? "count" : "time") window \(windowSize), min \(minimumCalls), failure ≥ \(failureThreshold)%, "
            + "slow ≥ \(slowThreshold)% at \(slowDuration), wait \(wait), \(permitted) half-open"
    }
}

/// One step of a random sequence, decoded from an integer so the generator can shrink it.
enum BreakerStep: Equatable {
    case acquire
    /// Completes the in-flight call at `pick` (modulo the number in flight).
    case complete(CallOutcome, slow: Bool, pick: Int)
    case advance(Duration)
    case reset, forceOpen, disable

    /// `code % 100` picks the step (weights below), `code / 100` is its argument (0…999).
    init(code: Int) {
        let argument = code / 100
        switch code % 100 {
        case ..<32: self = .acquire
        case ..<48: self = .complete(.success, slow: false, pick: argument)
        case ..<66: self = .complete(.failure, slow: false, pick: argument)
        case ..<72: self = .complete(.success, slow: true, pick: argument)
        case ..<76: self = .complete(.failure, slow: true, pick: argument)
        case ..<81: self = .complete(.ignored, slow: argument % 2 == 0, pick: argument)
        case ..<97: self = .advance(.milliseconds(argument * 10))
        case ..<98: self = .reset
        case ..<99: self = .forceOpen
        default: self = .disable
        }
    }
}

/// The result of running one sequence through both implementations.
struct BreakerModelCheck {
    var divergences: [String] = []
    /// How often each transition (`closed→open`…) and notable event happened: proves the sequences explore.
    var coverage: [String: Int] = [:]

    init(_ scenario: BreakerScenario, codes: [Int], mutation: ReferenceCircuitBreaker.Mutation = .none) {
        var real = CircuitBreakerStateMachine(configuration: scenario.configuration)
        var model = scenario.model(mutation)
        var now = Duration.zero
        var inFlight: [(permit: CircuitPermit, generation: Int)] = []

        for (index, code) in codes.enumerated() {
            let step = BreakerStep(code: code)
            func check(_ what: String, _ agree: Bool) {
                if !agree { divergences.append("step \(index) \(step): \(what)") }
            }
            func compare(_ transition: CircuitTransition?, _ expected: (CircuitState, CircuitState)?) {
                let actual = transition.map { [$0.from, $0.to] }
                check("transition \(String(describing: transition)) vs model \(String(describing: expected))",
                      actual == expected.map { [$0.0, $0.1] })
                guard let transition else { return }
                coverage["\(transition.from)→\(transition.to)", default: 0] += 1
                if transition.from == .closed, transition.to == .open, !scenario.windowIsCount {
                    coverage["closed→open (time window)", default: 0] += 1
                }
            }
            switch step {
            case .acquire:
                let (expected, expectedTransition) = model.acquire(now: now)
                switch (real.acquirePermission(now: now), expected) {
                case (.proceed(let permit), .proceed(let state, let generation)):
                    check("permit state \(permit.state) vs \(state)", permit.state == state)
                    compare(permit.transition, expectedTransition)
                    inFlight.append((permit, generation))
                case (.reject(let state, let retryAfter), .reject(let expectedState, let expectedRetry)):
                    check("reject \(state) \(String(describing: retryAfter)) vs \(expectedState) \(String(describing: expectedRetry))",
                          state == expectedState && retryAfter == expectedRetry)
                    compare(nil, expectedTransition)
                    coverage["reject \(state)", default: 0] += 1
                case (let actual, _):
                    check("permission \(actual) vs model \(expected)", false)
                }
            case .complete(let outcome, let slow, let pick):
                guard !inFlight.isEmpty else { break }
                let (permit, generation) = inFlight.remove(at: pick % inFlight.count)
                // Slow calls sometimes take exactly the slow-call duration; fast ones stay just under it.
                let slowMilliseconds = Int(scenario.slowDuration.components.seconds) * 1000
                let duration = slow ? scenario.slowDuration + .milliseconds(pick % 3 == 0 ? 0 : pick)
                                    : .milliseconds(pick % slowMilliseconds)
                if generation != model.generation { coverage["stale outcome", default: 0] += 1 }
                let transition = real.record(outcome, duration: duration, permit: permit, now: now)
                compare(transition, model.record(outcome, duration: duration, generation: generation, now: now))
            case .advance(let duration):
                now += duration
            case .reset:
                compare(real.reset(now: now), model.reset(now: now))
            case .forceOpen:
                compare(real.forceOpen(now: now), model.forceOpen(now: now))
            case .disable:
                compare(real.disable(now: now), model.disable(now: now))
            }
            check("state \(real.circuitState) vs model \(model.state)", real.circuitState == model.state)
        }
    }
}
