import Foundation
import HTTPTypes

/// What a ``RetryMiddleware`` retries, how often and how long it waits: a value, so it can be shared and tested.
///
/// The defaults follow RFC 9110 and the AWS "Exponential Backoff and Jitter" article: three attempts, exponential
/// backoff from 100 ms with full jitter, the transient statuses 408, 429, 500, 502, 503 and 504, connection and
/// timeout failures (never TLS or cancellation), idempotent methods only, and `Retry-After` obeyed up to 60 s.
public struct RetryPolicy: Sendable {
    /// Attempts in total, the first one included (`1` disables retries).
    public var maxAttempts: Int
    /// How the delay grows from one retry to the next.
    public var backoff: Backoff
    /// How the delay is randomised so that many clients do not retry in lockstep.
    public var jitter: Jitter
    /// Response statuses worth another attempt.
    public var retryableStatuses: Set<Int>
    /// Transport failures worth another attempt.
    public var retryableErrors: Set<TransportError.Kind>
    /// Methods retried without further proof that a repeat is harmless.
    public var idempotentMethods: Set<HTTPRequest.Method>
    /// Retries methods outside ``idempotentMethods`` even without an `Idempotency-Key` header.
    public var retryNonIdempotent: Bool
    /// The longest `Retry-After` the policy waits for; a server asking for more is given up on, not waited for.
    public var maxRetryAfter: Duration
    /// Overrides the defaults per endpoint or per error; `nil` from the closure keeps the defaults.
    public var decide: (@Sendable (RetryContext) -> RetryDecision?)?
    /// Returns a number in the given range; jitter draws from it, so tests inject a fixed source.
    public var random: @Sendable (ClosedRange<Double>) -> Double

    /// The statuses retried by default: request timeout, too many requests and the transient 5xx.
    public static let defaultRetryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The transport failures retried by default; TLS failures and cancellation are not transient.
    public static let defaultRetryableErrors: Set<TransportError.Kind> = [.connectFailed, .connectionReset, .timedOut]
    /// The methods RFC 9110 §9.2.2 calls idempotent.
    public static let defaultIdempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]
    /// The request header that makes a non-idempotent request safe to repeat.
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// A policy that never retries.
    public static let disabled = RetryPolicy(maxAttempts: 1)

    /// Creates a policy; every parameter has the default described on the type.
    public init(
        maxAttempts: Int = 3,
        backoff: Backoff = .exponential(),
        jitter: Jitter = .full,
        retryableStatuses: Set<Int> = RetryPolicy.defaultRetryableStatuses,
        retryableErrors: Set<TransportError.Kind> = RetryPolicy.defaultRetryableErrors,
        idempotentMethods: Set<HTTPRequest.Method> = RetryPolicy.defaultIdempotentMethods,
        retryNonIdempotent: Bool = false,
        maxRetryAfter: Duration = .seconds(60),
        decide: (@Sendable (RetryContext) -> RetryDecision?)? = nil,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        precondition(maxAttempts >= 1, "a request is attempted at least once")
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.jitter = jitter
        self.retryableStatuses = retryableStatuses
        self.retryableErrors = retryableErrors
        self.idempotentMethods = idempotentMethods
        self.retryNonIdempotent = retryNonIdempotent
        self.maxRetryAfter = maxRetryAfter
        self.decide = decide
        self.random = random
    }

    /// The delay before retry number `retry` (1 for the first retry) before jitter, never above the cap.
    public func baseDelay(forRetry retry: Int) -> Duration {
        backoff.delay(forRetry: retry)
    }

    /// The jittered delay before retry number `retry`; `previous` is the last jittered delay (decorrelated jitter).
    public func delay(forRetry retry: Int, previous: Duration?) -> Duration {
        jitter.apply(to: backoff, retry: retry, previous: previous, random: random)
    }
}
