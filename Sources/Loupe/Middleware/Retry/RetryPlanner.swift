import Foundation
import HTTPTypes

/// Decides, attempt by attempt, whether one request is retried and after how long: pure logic, no I/O.
///
/// Feed it each attempt's outcome with the time spent so far; it returns the action to carry out. It holds no
/// clock, no budget and no task, so every rule of ``RetryPolicy`` can be tested by calling it directly.
package struct RetryPlanner: Sendable {
    /// What the caller of the planner does next.
    package enum Action: Sendable, Hashable {
        /// Wait `after`, then send the request again; `reason` names what failed (`503`, `connection reset`).
        case retry(after: Duration, reason: String, source: RetryDelaySource)
        /// The outcome was worth retrying but a rule forbids it; deliver the outcome and record `reason`.
        case giveUp(reason: String)
        /// The response is not a retry candidate: return it.
        case returnResponse
        /// The error is not a retry candidate: throw it.
        case rethrow
    }

    private enum State: Sendable {
        case attempting(number: Int, previousDelay: Duration?)
        case finished
    }

    /// The rules applied.
    package let policy: RetryPolicy
    /// The operation name given to the decider.
    package let operation: String
    /// The request being retried.
    package let request: HTTPRequest
    /// Whether the body (if any) can be sent again.
    package let bodyIsReplayable: Bool
    /// The time all attempts and waits together may take, or `nil` for no limit.
    package let deadline: Duration?
    private var state = State.attempting(number: 1, previousDelay: nil)

    /// A planner for one request, about to send its first attempt.
    package init(policy: RetryPolicy, operation: String, request: HTTPRequest, body: RequestBody?, deadline: Duration? = nil) {
        self.policy = policy
        self.operation = operation
        self.request = request
        self.bodyIsReplayable = body?.isReplayable ?? true
        self.deadline = deadline
    }

    /// The number of the attempt in flight (1 for the first); `nil` once the planner has finished.
    package var attempt: Int? {
        if case .attempting(let number, _) = state { return number }
        return nil
    }

    /// The timeout for the next attempt: the configured one, shortened to what is left before the deadline.
    package func timeout(configured: Duration?, elapsed: Duration) -> Duration? {
        guard let deadline else { return configured }
        let left = max(deadline - elapsed, .zero)
        return configured.map { min($0, left) } ?? left
    }

    /// Classifies the outcome of the attempt in flight and returns what to do; after anything but `.retry` the
    /// planner has finished.
    package mutating func attemptFinished(_ outcome: Result<RawResponse, any Error>, elapsed: Duration, now: Date) -> Action {
        guard case .attempting(let number, let previous) = state else {
            preconditionFailure("RetryPlanner.attemptFinished called after the planner finished")
        }
        state = .finished
        let deliver: Action = if case .success = outcome { .returnResponse } else { .rethrow }
        let defaultReason = policy.retryReason(for: outcome)
        let override = policy.decide?(RetryContext(
            operation: operation, request: request, attempt: number, response: try? outcome.get(),
            error: outcome.failure, elapsed: elapsed))
        switch override {
        case .doNotRetry?:
            return defaultReason.map { .giveUp(reason: "the decider declined to retry \($0)") } ?? deliver
        case nil where defaultReason == nil:
            return deliver
        default:
            break
        }
        let reason = defaultReason ?? RetryPolicy.describe(outcome)
        guard bodyIsReplayable else { return .giveUp(reason: "the request body cannot be replayed") }
        guard override != nil || policy.allowsRepeating(request) else {
            return .giveUp(reason: "\(request.method) is not idempotent; send an Idempotency-Key header or opt in")
        }
        guard number < policy.maxAttempts else { return .giveUp(reason: "all \(policy.maxAttempts) attempts used") }

        let delay: Duration
        let source: RetryDelaySource
        if case .retry(let after)? = override {
            (delay, source) = (after, .decider)
        } else if let asked = retryAfter(outcome, now: now) {
            guard asked <= policy.maxRetryAfter else {
                return .giveUp(reason: "Retry-After asks for \(Quantity.duration(asked)), over the \(Quantity.duration(policy.maxRetryAfter)) cap")
            }
            (delay, source) = (asked, .retryAfter)
        } else {
            (delay, source) = (policy.delay(forRetry: number, previous: previous), .backoff)
        }
        if let deadline, elapsed + delay >= deadline {
            return .giveUp(reason: "waiting \(Quantity.duration(delay)) would pass the \(Quantity.duration(deadline)) deadline")
        }
        // Decorrelated jitter grows from the last backoff delay; a server's Retry-After does not reset it.
        state = .attempting(number: number + 1, previousDelay: source == .backoff ? delay : previous)
        return .retry(after: delay, reason: reason, source: source)
    }

    private func retryAfter(_ outcome: Result<RawResponse, any Error>, now: Date) -> Duration? {
        guard case .success(let response) = outcome, let value = response.head.headerFields[.retryAfter] else { return nil }
        return RetryAfter.delay(value, now: now)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
