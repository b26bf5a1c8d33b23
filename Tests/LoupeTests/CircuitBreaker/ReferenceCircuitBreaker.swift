// A deliberately naive circuit breaker, written from the specification alone, for the property test to compare
// the real state machine against. It keeps every call in a plain list and recomputes rates from scratch with
// integer arithmetic; speed does not matter here, being obviously right does.
import Loupe

struct ReferenceCircuitBreaker {
    /// One call's outcome as the breaker counts it.
    struct Call {
        var at: Duration
        var failed: Bool
        var slow: Bool
    }

    /// What the model says about a call.
    enum Decision: Equatable {
        case proceed(CircuitState, generation: Int)
        case reject(CircuitState, retryAfter: Duration?)
    }

    /// A one-line bug to plant, to prove the property test notices differences.
    enum Mutation { case none, halfOpenAllowsOneMore, strictFailureThreshold, countsStaleOutcomes }

    let windowIsCount: Bool
    let windowSize: Int
    let minimumCalls: Int
    let failureThreshold: Int
    let slowThreshold: Int
    let slowDuration: Duration
    let wait: Duration
    let permitted: Int
    var mutation = Mutation.none

    init(windowIsCount: Bool, windowSize: Int, minimumCalls: Int, failureThreshold: Int, slowThreshold: Int,
         slowDuration: Duration, wait: Duration, permitted: Int) {
        self.windowIsCount = windowIsCount
        self.windowSize = windowSize
        self.minimumCalls = minimumCalls
        self.failureThreshold = failureThreshold
        self.slowThreshold = slowThreshold
        self.slowDuration = slowDuration
        self.wait = wait
        self.permitted = permitted
    }

    private(set) var state = CircuitState.closed
    private var openUntil = Duration.zero
    private var calls: [Call] = []   // closed: every counted call since the circuit last closed
    private var probesTaken = 0      // half-open: permits handed out, minus those given back by ignored probes
    private var probes: [Call] = []  // half-open: completed probes
    private(set) var generation = 0

    /// Enters a state with empty lists and a new generation, so earlier permits become stale.
    private mutating func enter(_ next: CircuitState, now: Duration) -> (CircuitState, CircuitState) {
        let from = state
        state = next
        generation += 1
        calls = []
        probes = []
        probesTaken = 0
        if next == .open { openUntil = now + wait }
        return (from, next)
    }

    mutating func acquire(now: Duration) -> (Decision, (CircuitState, CircuitState)?) {
        var transition: (CircuitState, CircuitState)?
        if state == .open && now >= openUntil { transition = enter(.halfOpen, now: now) }
        switch state {
        case .open:
            return (.reject(.open, retryAfter: openUntil - now), transition)
        case .forcedOpen:
            return (.reject(.forcedOpen, retryAfter: nil), transition)
        case .halfOpen:
            let limit = mutation == .halfOpenAllowsOneMore ? permitted + 1 : permitted
            if probesTaken >= limit { return (.reject(.halfOpen, retryAfter: nil), transition) }
            probesTaken += 1
            return (.proceed(.halfOpen, generation: generation), transition)
        case .closed, .disabled:
            return (.proceed(state, generation: generation), transition)
        }
    }

    mutating func record(_ outcome: CallOutcome, duration: Duration, generation permitGeneration: Int, now: Duration) -> (CircuitState, CircuitState)? {
        if permitGeneration != generation && mutation != .countsStaleOutcomes { return nil }
        let call = Call(at: now, failed: outcome == .failure, slow: duration >= slowDuration)
        switch state {
        case .closed:
            if outcome == .ignored { return nil }
            calls.append(call)
            let window = windowIsCount
                ? Array(calls.suffix(windowSize))
                : calls.filter { second($0.at) > second(now) - Int64(windowSize) }
            let needed = windowIsCount ? min(minimumCalls, windowSize) : minimumCalls
            if window.count < needed { return nil }
            let failures = window.filter(\.failed).count
            let slow = window.filter(\.slow).count
            if reaches(failures, window.count, failureThreshold) || reaches(slow, window.count, slowThreshold) {
                return enter(.open, now: now)
            }
            return nil
        case .halfOpen:
            if outcome == .ignored {
                probesTaken -= 1
                return nil
            }
            probes.append(call)
            // Rates are over all permitted probes, so enough failures decide before the rest complete.
            if reaches(probes.filter(\.failed).count, permitted, failureThreshold)
                || reaches(probes.filter(\.slow).count, permitted, slowThreshold) {
                return enter(.open, now: now)
            }
            if probes.count == permitted { return enter(.closed, now: now) }
            return nil
        case .open, .forcedOpen, .disabled:
            return nil
        }
    }

    mutating func forceOpen(now: Duration) -> (CircuitState, CircuitState)? {
        state == .forcedOpen ? nil : enter(.forcedOpen, now: now)
    }

    mutating func disable(now: Duration) -> (CircuitState, CircuitState)? {
        state == .disabled ? nil : enter(.disabled, now: now)
    }

    mutating func reset(now: Duration) -> (CircuitState, CircuitState)? {
        let wasClosed = state == .closed
        let transition = enter(.closed, now: now)
        return wasClosed ? nil : transition
    }

    private func reaches(_ part: Int, _ whole: Int, _ threshold: Int) -> Bool {
        mutation == .strictFailureThreshold && threshold == failureThreshold
            ? part * 100 > threshold * whole
            : part * 100 >= threshold * whole
    }

    private func second(_ instant: Duration) -> Int64 {
        // Instants in the test are never negative, so whole seconds are the seconds component.
        instant.components.seconds
    }
}
