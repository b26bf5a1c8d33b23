import Foundation

/// A decider's verdict, overriding the policy's own classification of an outcome.
///
/// An override cannot resend a body that cannot be replayed, exceed ``RetryPolicy/maxAttempts``, pass the
/// middleware's deadline or the client's retry budget: those limits protect the server and the caller. Choosing to
/// retry does skip the idempotency check, which is how a decider opts one endpoint's POST in.
public enum RetryDecision: Sendable, Hashable {
    /// Deliver this outcome as it is.
    case doNotRetry
    /// Retry after the policy's delay (`Retry-After` when present, otherwise backoff with jitter).
    case retryWithPolicyDelay
    /// Retry after exactly this delay.
    case retry(after: Duration)
}

/// Where the delay before a retry came from, as recorded in the `source` attribute of the retry event.
package enum RetryDelaySource: String, Sendable, Hashable {
    /// The policy's backoff and jitter.
    case backoff
    /// The response's `Retry-After` header.
    case retryAfter = "retry-after"
    /// A ``RetryDecision/retry(after:)`` from the policy's decider.
    case decider
}
