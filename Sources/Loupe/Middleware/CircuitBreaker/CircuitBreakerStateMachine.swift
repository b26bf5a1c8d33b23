import Foundation

/// The circuit breaker's logic as a value: no clock, no locks, no I/O (SwiftNIO style).
///
/// The caller asks for permission before a call, reports the outcome after it, and carries out the action each
/// method returns. Time is a `Duration` on the breaker's timeline (time since its clock was first read), so the
/// machine compares plain numbers and tests drive it with literal times.
///
/// - closed: outcomes fill the sliding window; once it holds the minimum number of calls, a failure or
///   slow-call rate at or over its threshold opens the circuit.
/// - open: calls are rejected until `waitDurationInOpen` has elapsed; the next request moves to half-open.
/// - half-open: `permittedCallsInHalfOpen` probes go through, further calls are rejected until they complete.
///   Once all have completed, rates under the thresholds close the circuit; it re-opens as soon as the failures
///   (or slow calls) already recorded make the threshold certain, without waiting for the remaining probes.
/// - forced-open and disabled are entered and left only by hand (`forceOpen()`, `disable()`, `reset()`).
///
/// Every transition starts a new generation: outcomes of calls let through earlier are ignored.
package struct CircuitBreakerStateMachine: Sendable {
    enum State: Sendable, Hashable {
        case closed
        case open(until: Duration)
        case halfOpen(HalfOpenProbes)
        case forcedOpen
        case disabled
    }

    /// The probes of one half-open period.
    struct HalfOpenProbes: Sendable, Hashable {
        /// Permits handed out and not given back (completed probes keep theirs: the limit is per period).
        var taken = 0
        var completed = CircuitWindowTotals()
    }

    /// What to do with a call.
    package enum PermissionAction: Sendable, Hashable {
        /// Send it, then report its outcome with ``CircuitBreakerStateMachine/record(_:duration:permit:now:)``.
        case proceed(CircuitPermit)
        /// Fail fast. `retryAfter` is the time until the next probe may go, `nil` when no timer decides it
        /// (forced open, or half-open with every probe still in flight).
        case reject(state: CircuitState, retryAfter: Duration?)
    }

    /// The settings this breaker runs with.
    package let configuration: CircuitBreakerConfiguration
    private(set) var state: State = .closed
    private var window: CircuitBreakerWindow
    private var generation: UInt64 = 0

    /// A closed breaker with an empty window.
    package init(configuration: CircuitBreakerConfiguration = CircuitBreakerConfiguration()) {
        precondition(configuration.minimumNumberOfCalls > 0, "minimumNumberOfCalls must be positive")
        precondition(configuration.permittedCallsInHalfOpen > 0, "permittedCallsInHalfOpen must be positive")
        precondition(configuration.failureRateThreshold > 0 && configuration.failureRateThreshold <= 100,
                     "failureRateThreshold is a percentage in (0, 100]")
        precondition(configuration.slowCallRateThreshold > 0 && configuration.slowCallRateThreshold <= 100,
                     "slowCallRateThreshold is a percentage in (0, 100]")
        self.configuration = configuration
        self.window = CircuitBreakerWindow(configuration.slidingWindow)
    }

    /// The current state, as the recorder shows it.
    package var circuitState: CircuitState {
        switch state {
        case .closed: .closed
        case .open: .open
        case .halfOpen: .halfOpen
        case .forcedOpen: .forcedOpen
        case .disabled: .disabled
        }
    }

    /// Decides whether a call may go now; moves open to half-open when the wait has elapsed.
    package mutating func acquirePermission(now: Duration) -> PermissionAction {
        var transition: CircuitTransition?
        if case .open(let until) = state {
            guard now >= until else { return .reject(state: .open, retryAfter: until - now) }
            transition = move(to: .halfOpen(HalfOpenProbes()), reason: "wait of \(Self.format(configuration.waitDurationInOpen)) elapsed", now: now)
            transition?.overdue = now - until
        }
        switch state {
        case .closed, .disabled:
            return .proceed(permit(now: now, transition: transition))
        case .halfOpen(var probes):
            guard probes.taken < configuration.permittedCallsInHalfOpen else {
                return .reject(state: .halfOpen, retryAfter: nil)
            }
            probes.taken += 1
            state = .halfOpen(probes)
            return .proceed(permit(now: now, transition: transition))
        case .forcedOpen:
            return .reject(state: .forcedOpen, retryAfter: nil)
        case .open:
            preconditionFailure("open was left above")
        }
    }

    /// Records how a permitted call ended; returns the transition it caused, if any.
    package mutating func record(_ outcome: CallOutcome, duration: Duration, permit: CircuitPermit, now: Duration) -> CircuitTransition? {
        guard permit.generation == generation else { return nil }
        let slow = duration >= configuration.slowCallDuration
        switch state {
        case .closed:
            guard outcome != .ignored else { return nil }
            let totals = window.record(failed: outcome == .failure, slow: slow, now: now)
            guard totals.calls >= minimumCalls, let reason = tripReason(totals) else { return nil }
            return move(to: .open(until: now + configuration.waitDurationInOpen), reason: reason, now: now)
        case .halfOpen(var probes):
            if outcome == .ignored {
                probes.taken -= 1  // The probe said nothing: give its slot to the next call.
                state = .halfOpen(probes)
                return nil
            }
            probes.completed.add(failed: outcome == .failure, slow: slow)
            state = .halfOpen(probes)
            return decideHalfOpen(probes, now: now)
        case .open, .forcedOpen, .disabled:
            return nil
        }
    }

    /// Opens the circuit until ``reset(now:)`` or ``disable(now:)``; `nil` when it already was.
    package mutating func forceOpen(now: Duration) -> CircuitTransition? {
        state == .forcedOpen ? nil : move(to: .forcedOpen, reason: "forced open", now: now)
    }

    /// Lets every call through without measuring; `nil` when already disabled.
    package mutating func disable(now: Duration) -> CircuitTransition? {
        state == .disabled ? nil : move(to: .disabled, reason: "disabled", now: now)
    }

    /// Closes the circuit with an empty window from any state; `nil` when it was closed already (the window is
    /// still emptied and calls in flight no longer count).
    package mutating func reset(now: Duration) -> CircuitTransition? {
        let wasClosed = state == .closed
        let transition = move(to: .closed, reason: "reset", now: now)
        return wasClosed ? nil : transition
    }

    // MARK: - Internals

    private var minimumCalls: Int {
        if case .count(let size) = configuration.slidingWindow { return min(size, configuration.minimumNumberOfCalls) }
        return configuration.minimumNumberOfCalls
    }

    private func permit(now: Duration, transition: CircuitTransition?) -> CircuitPermit {
        CircuitPermit(state: circuitState, acquiredAt: now, transition: transition, generation: generation)
    }

    /// Why the closed window trips, or `nil` when both rates are under their thresholds.
    private func tripReason(_ totals: CircuitWindowTotals) -> String? {
        let config = configuration
        if Self.reaches(totals.failures, of: totals.calls, config.failureRateThreshold) {
            return "failure rate \(Self.percent(totals.failures, totals.calls)) ≥ \(Self.format(config.failureRateThreshold))% over \(totals.calls) calls"
        }
        if Self.reaches(totals.slow, of: totals.calls, config.slowCallRateThreshold) {
            return "slow-call rate \(Self.percent(totals.slow, totals.calls)) ≥ \(Self.format(config.slowCallRateThreshold))% over \(totals.calls) calls (slow ≥ \(Self.format(config.slowCallDuration)))"
        }
        return nil
    }

    private mutating func decideHalfOpen(_ probes: HalfOpenProbes, now: Duration) -> CircuitTransition? {
        let permitted = configuration.permittedCallsInHalfOpen
        let done = probes.completed
        // Measured against all permitted probes: once this holds, no outcome still to come can undo it.
        if Self.reaches(done.failures, of: permitted, configuration.failureRateThreshold) {
            let reason = "\(done.failures)/\(permitted) half-open probes failed (≥ \(Self.format(configuration.failureRateThreshold))%)"
            return move(to: .open(until: now + configuration.waitDurationInOpen), reason: reason, now: now)
        }
        if Self.reaches(done.slow, of: permitted, configuration.slowCallRateThreshold) {
            let reason = "\(done.slow)/\(permitted) half-open probes slow (≥ \(Self.format(configuration.slowCallRateThreshold))%)"
            return move(to: .open(until: now + configuration.waitDurationInOpen), reason: reason, now: now)
        }
        guard done.calls == permitted else { return nil }
        let reason = done.failures == 0 && done.slow == 0
            ? "\(permitted)/\(permitted) half-open probes succeeded"
            : "\(done.failures)/\(permitted) half-open probes failed, \(done.slow) slow: under the thresholds"
        return move(to: .closed, reason: reason, now: now)
    }

    private mutating func move(to next: State, reason: String, now: Duration) -> CircuitTransition {
        let from = circuitState
        state = next
        generation &+= 1
        window = CircuitBreakerWindow(configuration.slidingWindow)
        return CircuitTransition(from: from, to: circuitState, reason: reason, at: now)
    }

    /// `part / whole ≥ threshold %`, in exact arithmetic for whole-number thresholds (no 29/100·100 = 28.999…).
    static func reaches(_ part: Int, of whole: Int, _ threshold: Double) -> Bool {
        whole > 0 && Double(part) * 100 >= threshold * Double(whole)
    }
}
