import Foundation
import HTTPTypes

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

/// Holds one ``CircuitBreakerStateMachine`` per key and carries out what they decide.
///
/// Share one registry between clients that should share breaker state. Time comes from the clock each call
/// passes (the client's injected clock), read as offsets from the first reading: use one clock per registry.
public actor CircuitBreakerRegistry {
    /// The settings every breaker of this registry starts with.
    public nonisolated let configuration: CircuitBreakerConfiguration
    /// How requests are mapped to breakers.
    public nonisolated let keying: CircuitBreakerKeying
    private let historyLimit: Int
    private let wallClock: @Sendable () -> Date
    private var machines: [String: CircuitBreakerStateMachine] = [:]
    private var timeline = BreakerTimeline()
    private var log: [CircuitTransitionRecord] = []
    private var listeners: [@Sendable (CircuitTransitionRecord) -> Void] = []

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
    public nonisolated func key(for request: HTTPRequest, operation: String) -> String {
        keying.key(request, operation)
    }

    /// Asks the breaker for `key` whether a call may go now, reading time from `clock`.
    public func acquirePermission(for key: String, clock: any Clock<Duration>) -> CircuitBreakerStateMachine.PermissionAction {
        let now = timeline.now(on: clock)
        let action = machines[key, default: CircuitBreakerStateMachine(configuration: configuration)].acquirePermission(now: now)
        if case .proceed(let permit) = action, let transition = permit.transition { publish(transition, key: key) }
        return action
    }

    /// Reports how a permitted call ended; its duration runs from the permit to now on `clock`.
    @discardableResult
    public func record(_ outcome: CallOutcome, permit: CircuitPermit, for key: String, clock: any Clock<Duration>) -> CircuitTransitionRecord? {
        let now = timeline.now(on: clock)
        guard let transition = machines[key]?.record(outcome, duration: now - permit.acquiredAt, permit: permit, now: now) else {
            return nil
        }
        return publish(transition, key: key)
    }

    /// The current state of every breaker that has seen a call. An open breaker whose wait has elapsed still
    /// says `open` until the next request moves it to half-open.
    public func states() -> [String: CircuitState] {
        machines.mapValues(\.circuitState)
    }

    /// The retained transitions, oldest first, of one key or of all.
    public func history(for key: String? = nil) -> [CircuitTransitionRecord] {
        guard let key else { return log }
        return log.filter { $0.key == key }
    }

    /// Calls `listener` with every transition from now on (on the registry's executor: keep it quick).
    public func addListener(_ listener: @escaping @Sendable (CircuitTransitionRecord) -> Void) {
        listeners.append(listener)
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

    private func manual(_ key: String, _ change: (inout CircuitBreakerStateMachine, Duration) -> CircuitTransition?) -> CircuitTransitionRecord? {
        let now = timeline.now()
        guard let transition = change(&machines[key, default: CircuitBreakerStateMachine(configuration: configuration)], now) else {
            return nil
        }
        return publish(transition, key: key)
    }

    @discardableResult
    private func publish(_ transition: CircuitTransition, key: String) -> CircuitTransitionRecord {
        let record = CircuitTransitionRecord(key: key, transition: transition, date: wallClock())
        log.append(record)
        if log.count > historyLimit { log.removeFirst(log.count - historyLimit) }
        for listener in listeners { listener(record) }
        return record
    }
}
