import Foundation
import HTTPTypes
import Synchronization

/// A transition of one keyed breaker, as the registry's history and listeners see it.
public struct CircuitTransitionRecord: Sendable, Hashable, CustomStringConvertible {
    /// The breaker's key (a host, an operation name…).
    public var key: String
    /// What changed and why.
    public var transition: CircuitTransition
    /// Wall-clock time of the change, from the registry's injected `now`.
    public var date: Date

    /// `api.example.com: closed → open: …`.
    public var description: String { "\(key): \(transition)" }
}

/// Holds one `CircuitBreakerStateMachine` per key and carries out what they decide.
///
/// Share one registry between clients that should share breaker state. Time comes from the clock each call
/// passes (the client's injected clock), read as offsets from the first reading: use one clock per registry.
///
/// The machines sit behind a lock, not in an actor: every request asks and reports once, and each actor hop
/// back to the caller's executor cost a thread wake-up (measured in DECISIONS.md, 28).
/// Decisions are pure (`CircuitBreakerStateMachine`); the lock only guards holding them. Listeners hear every
/// transition in the order it happened, outside the lock, so one may call back into the registry.
public final class CircuitBreakerRegistry: Sendable {
    /// The settings every breaker of this registry starts with.
    public let configuration: CircuitBreakerConfiguration
    /// How requests are mapped to breakers.
    public let keying: CircuitBreakerKeying
    private let historyLimit: Int
    private let wallClock: @Sendable () -> Date

    private struct State {
        var machines: [String: CircuitBreakerStateMachine] = [:]
        /// Keys whose thresholds were recorded (``claimFirstUse(of:)``).
        var announced: Set<String> = []
        var timeline = BreakerTimeline()
        var log: [CircuitTransitionRecord] = []
        var listeners: [@Sendable (CircuitTransitionRecord) -> Void] = []
        /// Transitions logged but not yet told to the listeners, oldest first.
        var undelivered: [CircuitTransitionRecord] = []
        /// Whether some thread is telling listeners now (it also delivers what others log meanwhile).
        var delivering = false
    }

    private let state = Mutex(State())

    /// A registry whose breakers use `configuration`, keyed by `keying`, keeping the last `historyLimit`
    /// transitions; `now` stamps them with wall-clock time.
    public init(
        configuration: CircuitBreakerConfiguration = CircuitBreakerConfiguration(),
        keying: CircuitBreakerKeying = .host,
        historyLimit: Int = 1_000,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        _ = CircuitBreakerStateMachine(configuration: configuration)  // Reject a bad configuration at once.
        self.configuration = configuration
        self.keying = keying
        self.historyLimit = max(0, historyLimit)
        self.wallClock = now
    }

    /// The breaker key for a request.
    public func key(for request: HTTPRequest, operation: String) -> String {
        keying.key(request, operation)
    }

    /// `true` exactly once per key: the first caller records the key's thresholds.
    package func claimFirstUse(of key: String) -> Bool {
        state.withLock { $0.announced.insert(key).inserted }
    }

    /// Asks the breaker for `key` whether a call may go now, reading time from `clock`.
    package func acquirePermission(for key: String, clock: any Clock<Duration>) -> CircuitBreakerStateMachine.PermissionAction {
        let configuration = configuration
        let (action, record) = state.withLock { state -> (CircuitBreakerStateMachine.PermissionAction, CircuitTransitionRecord?) in
            let now = state.timeline.now(on: clock)
            let action = state.machines[key, default: CircuitBreakerStateMachine(configuration: configuration)].acquirePermission(now: now)
            guard case .proceed(let permit) = action, let transition = permit.transition else { return (action, nil) }
            return (action, log(transition, key: key, in: &state))
        }
        if record != nil { deliver() }
        return action
    }

    /// Reports how a permitted call ended; its duration runs from the permit to now on `clock`.
    @discardableResult
    package func record(_ outcome: CallOutcome, permit: CircuitPermit, for key: String, clock: any Clock<Duration>) -> CircuitTransitionRecord? {
        let record = state.withLock { state -> CircuitTransitionRecord? in
            let now = state.timeline.now(on: clock)
            guard let transition = state.machines[key]?.record(outcome, duration: now - permit.acquiredAt, permit: permit, now: now)
            else { return nil }
            return log(transition, key: key, in: &state)
        }
        if record != nil { deliver() }
        return record
    }

    /// The current state of every breaker that has seen a call. An open breaker whose wait has elapsed still
    /// says `open` until the next request moves it to half-open.
    public func states() -> [String: CircuitState] {
        state.withLock { $0.machines.mapValues(\.circuitState) }
    }

    /// The retained transitions, oldest first, of one key or of all.
    public func history(for key: String? = nil) -> [CircuitTransitionRecord] {
        state.withLock { state in
            guard let key else { return state.log }
            return state.log.filter { $0.key == key }
        }
    }

    /// Calls `listener` with every transition from now on, on the thread that caused it (keep it quick).
    public func addListener(_ listener: @escaping @Sendable (CircuitTransitionRecord) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Opens the breaker for `key` until it is reset or disabled.
    @discardableResult
    public func forceOpen(_ key: String) -> CircuitTransitionRecord? {
        manual(key) { $0.forceOpen(now: $1) }
    }

    /// Lets every call for `key` through without measuring.
    @discardableResult
    public func disable(_ key: String) -> CircuitTransitionRecord? {
        manual(key) { $0.disable(now: $1) }
    }

    /// Closes the breaker for `key` with an empty window.
    @discardableResult
    public func reset(_ key: String) -> CircuitTransitionRecord? {
        manual(key) { $0.reset(now: $1) }
    }

    private func manual(
        _ key: String, _ change: (inout CircuitBreakerStateMachine, Duration) -> CircuitTransition?
    ) -> CircuitTransitionRecord? {
        let configuration = configuration
        let record = state.withLock { state -> CircuitTransitionRecord? in
            let now = state.timeline.now()
            guard let transition = change(&state.machines[key, default: CircuitBreakerStateMachine(configuration: configuration)], now)
            else { return nil }
            return log(transition, key: key, in: &state)
        }
        if record != nil { deliver() }
        return record
    }

    /// Keeps the transition in the history (under the lock, so the history's order is the machines' order).
    private func log(_ transition: CircuitTransition, key: String, in state: inout State) -> CircuitTransitionRecord {
        let record = CircuitTransitionRecord(key: key, transition: transition, date: wallClock())
        state.log.append(record)
        if state.log.count > historyLimit { state.log.removeFirst(state.log.count - historyLimit) }
        if !state.listeners.isEmpty { state.undelivered.append(record) }
        return record
    }

    /// Tells the listeners what was logged, outside the lock, in log order. One thread delivers at a time and
    /// keeps going until nothing is left, so records logged meanwhile by other threads (or by a listener that
    /// calls back in) are delivered by it, in order, and none is stranded.
    private func deliver() {
        let claimed = state.withLock { state in
            guard !state.delivering, !state.undelivered.isEmpty else { return false }
            state.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let (batch, listeners) = state.withLock {
                state -> ([CircuitTransitionRecord], [@Sendable (CircuitTransitionRecord) -> Void]) in
                if state.undelivered.isEmpty { state.delivering = false }
                defer { state.undelivered.removeAll() }
                return (state.undelivered, state.listeners)
            }
            if batch.isEmpty { return }
            for record in batch { for listener in listeners { listener(record) } }
        }
    }
}
