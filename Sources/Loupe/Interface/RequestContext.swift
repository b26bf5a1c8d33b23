import Foundation
import HTTPTypes

/// What travels with a request through the middleware chain to the transport.
///
/// A value: a middleware that changes it (for example to annotate the next attempt) passes its copy to `next`.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct RequestContext: Sendable {
    /// The logical request this belongs to.
    public var exchangeID: UUID { tracker.exchangeID }
    /// The endpoint's operation name (`GET /users` when the endpoint names none).
    public var operation: String { tracker.operation }
    /// How long one attempt may take; transports apply it. `nil` means the transport's default.
    public var timeout: Optional<Duration>
    /// Notes for the next attempt, recorded with it.
    public var annotations: AttemptAnnotations
    /// The attempt being sent; set by the client just before the transport is called.
    public internal(set) var attempt: Optional<AttemptHandle>
    /// The clock that middleware use for delays (injected so tests never sleep).
    public var clock: any Clock<Duration> { tracker.clock }

    // What does not change during an exchange (its id, operation and clock) lives once in the tracker, a class:
    // the chain copies and destroys the context several times a request (a middleware that annotates the next
    // attempt passes its own copy), and each copy retained the operation's text and copied the clock's existential
    // through its witness table.
    let tracker: ExchangeTracker

    init(timeout: Duration?, tracker: ExchangeTracker) {
        self.timeout = timeout
        self.annotations = AttemptAnnotations()
        self.attempt = nil
        self.tracker = tracker
    }

    /// Records a decision about this exchange (retry scheduled, breaker transition, refresh wait…).
    public func record(_ kind: ExchangeEventKind, _ message: String, attributes: [String: String] = [:]) {
        tracker.record(kind, message, attributes: attributes)
    }

    /// The number of attempts sent so far for this exchange.
    public var attemptsSoFar: Int { tracker.attemptCount }

    /// Whether `request`'s authority is the one the client checked before the exchange started (and so needs no
    /// ``RequestTargetCheck`` again). Equal texts share their storage unless a middleware rewrote the authority,
    /// so this is a comparison of two words on every request that keeps it.
    package func targetChecked(_ request: HTTPRequest) -> Bool {
        guard let checked = tracker.checkedAuthority else { return false }
        return request.authority == checked
    }
}

/// What middleware say about the next attempt, so the recorder can show why it happened.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct AttemptAnnotations: Sendable, Hashable {
    /// Why this attempt is a retry (for example `503`, `connection reset`).
    public var retryReason: Optional<String>
    /// How long the client waited before this attempt.
    public var retryDelay: Optional<Duration>
    /// The circuit breaker's state when this attempt was dispatched.
    public var circuitState: Optional<String>
    /// Anything else worth showing.
    public var extra: [String: String]

    public init(retryReason: String? = nil, retryDelay: Duration? = nil, circuitState: String? = nil, extra: [String: String] = [:]) {
        self.retryReason = retryReason
        self.retryDelay = retryDelay
        self.circuitState = circuitState
        self.extra = extra
    }
}

extension AttemptAnnotations {
    /// Adds a note under `name` in ``extra``. The first note makes room for the few a stack adds, so the dictionary
    /// is not grown, and every note in it hashed again, twice on each attempt.
    package mutating func note(_ name: String, _ value: String) {
        if extra.isEmpty { extra.reserveCapacity(4) }
        extra[name] = value
    }
}
