import Foundation
import HTTPTypes

/// Fails calls fast while the breaker for their key is open, and feeds every outcome to it.
///
/// Place it after (inside) a retry middleware: `[RetryMiddleware(...), CircuitBreakerMiddleware(...)]`, so every
/// attempt goes through the breaker, each failed attempt counts, and once it opens the retry sees a
/// ``CircuitOpenError`` (with `retryAfter`) instead of hammering a failing host. Placed outside the retry, the
/// breaker would count one outcome per logical request and could not stop the retries.
///
/// Each attempt is annotated with the breaker state at dispatch (`closed`, `half-open`, `disabled`), every
/// transition is recorded as a `.circuitTransition` event on the exchange that caused it (attributes `key`,
/// `from`, `to`, `reason`), and call durations are measured on the client's injected clock for slow-call detection.
public struct CircuitBreakerMiddleware: ClientMiddleware {
    /// Holds the breakers; share it to share state, inspect it for states and history.
    public let registry: CircuitBreakerRegistry

    /// A middleware driving the breakers of `registry`.
    public init(registry: CircuitBreakerRegistry) {
        self.registry = registry
    }

    /// A middleware with a registry of its own.
    public init(configuration: CircuitBreakerConfiguration = CircuitBreakerConfiguration(), keying: CircuitBreakerKeying = .host) {
        self.init(registry: CircuitBreakerRegistry(configuration: configuration, keying: keying))
    }

    /// Asks the breaker, sends through `next` if allowed, and reports the outcome.
    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let key = registry.key(for: request, operation: context.operation)
        let admission = registry.admit(key, clock: context.clock)
        if admission.firstUse {
            var attributes = registry.configuration.recordedAttributes
            attributes["key"] = key
            context.record(.circuitConfigured, "circuit \(key): thresholds", attributes: attributes)
        }
        let permit: CircuitPermit
        switch admission.action {
        case .reject(let state, let retryAfter):
            var attributes = ["key": key, "state": state.rawValue]
            if let retryAfter { attributes["retryAfterMs"] = retryAfter.storedMilliseconds }
            context.record(.shortCircuit, "short-circuited: circuit \(key) is \(state)", attributes: attributes)
            throw CircuitOpenError(key: key, state: state, retryAfter: retryAfter)
        case .proceed(let granted):
            permit = granted
        }
        if let transition = permit.transition { recordTransition(transition, key: key, in: context) }

        var context = context
        context.annotations.circuitState = permit.state.rawValue
        context.annotations.note("circuit.key", key)
        let classify = registry.configuration.classify
        do {
            let response = try await next(request, body, context)
            finish(classify(.response(response.head)), permit: permit, slot: admission.slot, key: key, context: context)
            return response
        } catch {
            // A caller that gave up says nothing about the server, whatever the transport made of it.
            let outcome = Task.isCancelled ? .ignored : classify(.error(error))
            finish(outcome, permit: permit, slot: admission.slot, key: key, context: context)
            throw error
        }
    }

    private func finish(_ outcome: CallOutcome, permit: CircuitPermit, slot: Int, key: String, context: RequestContext) {
        if let record = registry.record(outcome, permit: permit, slot: slot, key: key, clock: context.clock) {
            recordTransition(record.transition, key: key, in: context)
        }
    }

    /// Records a transition; a move to open also says when the first probe may go (`probeAt`, wall-clock seconds
    /// since 1970, and `waitMs`), and a move to half-open when the wait ran out (`timerAt`), so a viewer in another
    /// process can show the countdown and the timer's moment, which the next request only finds out later.
    private func recordTransition(_ transition: CircuitTransition, key: String, in context: RequestContext) {
        var attributes = [
            "key": key, "from": transition.from.rawValue, "to": transition.to.rawValue, "reason": transition.reason,
        ]
        let wait = registry.configuration.waitDurationInOpen
        if transition.to == .open {
            attributes["waitMs"] = wait.storedMilliseconds
            attributes["probeAt"] = Self.epoch(context.tracker.now().addingTimeInterval(Self.seconds(wait)))
        }
        if let overdue = transition.overdue {
            attributes["timerAt"] = Self.epoch(context.tracker.now().addingTimeInterval(-Self.seconds(overdue)))
        }
        context.record(.circuitTransition, "circuit \(key): \(transition)", attributes: attributes)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func epoch(_ date: Date) -> String { String(format: "%.3f", date.timeIntervalSince1970) }
}
