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
/// back to the caller's executor cost a thread wake-up.
/// Decisions are pure (`CircuitBreakerStateMachine`); the lock only guards holding them. Listeners hear every
/// transition in the order it happened, outside the lock, so one may call back into the registry.
public final class CircuitBreakerRegistry: Sendable {
    /// The settings every breaker of this registry starts with.
    public let configuration: CircuitBreakerConfiguration
    /// How requests are mapped to breakers.
    public let keying: CircuitBreakerKeying
    private let historyLimit: Int
    private let wallClock: @Sendable () -> Date

    /// One key's breaker. Slots are never removed, so a slot's index stays valid for the registry's life: the
    /// middleware asks by key once a call and reports the outcome by index, with no second string hash.
    private struct Slot {
        let key: String
        var machine: CircuitBreakerStateMachine
        /// Whether the key's thresholds were recorded (``admit(_:clock:)``).
        var announced = false
    }

    private struct State {
        var slots: [Slot] = []
        var slotIndex: [String: Int] = [:]
        var timeline = BreakerTimeline()
        var log: [CircuitTransitionRecord] = []
        var listeners: [@Sendable (CircuitTransitionRecord) -> Void] = []
        /// Transitions logged but not yet told to the listeners, oldest first.
        var undelivered: [CircuitTransitionRecord] = []
        /// Whether some thread is telling listeners now (it also delivers what others log meanwhile).
        var delivering = false

        /// The index of `key`'s slot, made with a fresh breaker the first time.
        mutating func slot(for key: String, configuration: CircuitBreakerConfiguration) -> Int {
            if let index = slotIndex[key] { return index }
            slots.append(Slot(key: key, machine: CircuitBreakerStateMachine(configuration: configuration)))
            slotIndex[key] = slots.count - 1
            return slots.count - 1
        }
    }

    /// What ``admit(_:clock:)`` decided for one call: where its breaker is, whether this call is the key's first
    /// (its thresholds are recorded once), and whether it may go.
    package struct Admission: Sendable {
        /// The key's slot, for ``record(_:permit:slot:key:clock:)``; valid on this registry only.
        package let slot: Int
        /// `true` exactly once per key: the first call records the key's thresholds.
        package let firstUse: Bool
        /// As ``acquirePermission(for:clock:)``.
        package let action: CircuitBreakerStateMachine.PermissionAction
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

    /// Asks the breaker for `key` whether a call may go now, reading time from `clock`.
    package func acquirePermission(for key: String, clock: any Clock<Duration>) -> CircuitBreakerStateMachine.PermissionAction {
        admit(key, clock: clock, claimingFirstUse: false).action
    }

    /// ``acquirePermission(for:clock:)``, and whether this is the key's first call, in one look-up of `key` under
    /// one lock: the middleware asks once a call.
    package func admit(_ key: String, clock: any Clock<Duration>) -> Admission {
        admit(key, clock: clock, claimingFirstUse: true)
    }

    private func admit(_ key: String, clock: any Clock<Duration>, claimingFirstUse: Bool) -> Admission {
        let configuration = configuration
        let (admission, record) = state.withLock { state -> (Admission, CircuitTransitionRecord?) in
            let now = state.timeline.now(on: clock)
            let index = state.slot(for: key, configuration: configuration)
            let firstUse = claimingFirstUse && !state.slots[index].announced
            if firstUse { state.slots[index].announced = true }
            let action = state.slots[index].machine.acquirePermission(now: now)
            let admission = Admission(slot: index, firstUse: firstUse, action: action)
            guard case .proceed(let permit) = action, let transition = permit.transition else { return (admission, nil) }
            return (admission, log(transition, key: key, in: &state))
        }
        if record != nil { deliver() }
        return admission
    }

    /// Reports how a permitted call ended; its duration runs from the permit to now on `clock`.
    @discardableResult
    package func record(_ outcome: CallOutcome, permit: CircuitPermit, for key: String, clock: any Clock<Duration>) -> CircuitTransitionRecord? {
        let record = state.withLock { state -> CircuitTransitionRecord? in
            recordLocked(outcome, permit: permit, slot: state.slotIndex[key], key: key, clock: clock, in: &state)
        }
        if record != nil { deliver() }
        return record
    }

    /// ``record(_:permit:for:clock:)`` for the breaker at `slot` (from ``admit(_:clock:)`` on this registry), whose
    /// key is `key`: no look-up by key.
    @discardableResult
    package func record(_ outcome: CallOutcome, permit: CircuitPermit, slot: Int, key: String, clock: any Clock<Duration>) -> CircuitTransitionRecord? {
        let record = state.withLock { state in
            recordLocked(outcome, permit: permit, slot: slot, key: key, clock: clock, in: &state)
        }
        if record != nil { deliver() }
        return record
    }

    private func recordLocked(
        _ outcome: CallOutcome, permit: CircuitPermit, slot: Int?, key: String, clock: any Clock<Duration>, in state: inout State
    ) -> CircuitTransitionRecord? {
        let now = state.timeline.now(on: clock)  // Read even for an unknown key, as before: the first reading sets the origin.
        guard let slot, let transition = state.slots[slot].machine.record(outcome, duration: now - permit.acquiredAt, permit: permit, now: now)
        else { return nil }
        return log(transition, key: key, in: &state)
    }

    /// The current state of every breaker that has seen a call. An open breaker whose wait has elapsed still
    /// says `open` until the next request moves it to half-open.
    public func states() -> [String: CircuitState] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.slots.lazy.map { ($0.key, $0.machine.circuitState) })
        }
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
            let index = state.slot(for: key, configuration: configuration)
            guard let transition = change(&state.slots[index].machine, now)
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
