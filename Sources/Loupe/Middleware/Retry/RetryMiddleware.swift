import Foundation
import HTTPTypes

/// Sends a request again when an attempt fails in a way a ``RetryPolicy`` calls transient.
///
/// A `RetryPlanner` decides; this middleware carries the decision out: it waits on the client's clock (so a
/// `ManualClock` drives tests), annotates the next attempt with the reason and delay, and records a
/// ``ExchangeEventKind/retryScheduled`` event for every retry and an ``ExchangeEventKind/retryGivenUp`` event for
/// every retry it declines. An optional ``RetryBudget`` shared by the client caps retries across all requests, and
/// `deadline` bounds all attempts and waits together: no wait that would pass it is started, and each attempt's
/// timeout is shortened to the time left. Cancelling the caller ends a wait at once with `CancellationError`.
///
/// Put it before middleware that must run once per attempt (authentication, circuit breaker), so that every retry
/// passes through them again.
public struct RetryMiddleware: ClientMiddleware {
    /// The rules.
    public let policy: RetryPolicy
    /// The client-wide allowance, or `nil` for none.
    public let budget: RetryBudget?
    /// The time all attempts and waits of one request may take, or `nil` for no limit.
    public let deadline: Duration?

    /// Creates the middleware; share one `budget` between all the middleware of a client.
    public init(policy: RetryPolicy = RetryPolicy(), budget: RetryBudget? = nil, deadline: Duration? = nil) {
        self.policy = policy
        self.budget = budget
        self.deadline = deadline
    }

    /// Sends the request, then retries it while the planner says so and the budget allows.
    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let elapsed = Stopwatch.start(context.clock)
        var planner = RetryPlanner(policy: policy, operation: context.operation, request: request, body: body, deadline: deadline)
        var context = context
        let configuredTimeout = context.timeout
        budget?.requestStarted()
        while let attempt = planner.attempt {
            context.timeout = planner.timeout(configured: configuredTimeout, elapsed: elapsed())
            let outcome: Result<RawResponse, any Error>
            do { outcome = .success(try await next(request, body, context)) } catch { outcome = .failure(error) }
            // A cancelled caller wants no further attempt, whatever the outcome.
            if Task.isCancelled { return try outcome.get() }
            // The client's injected wall clock, so HTTP-date Retry-After values are compared with the time tests set.
            switch planner.attemptFinished(outcome, elapsed: elapsed(), now: context.tracker.now()) {
            case .returnResponse, .rethrow:
                return try outcome.get()
            case .giveUp(let reason):
                let failure = RetryPolicy.describe(outcome)
                context.record(.retryGivenUp, "Not retrying \(failure): \(reason)",
                               attributes: ["attempt": "\(attempt)", "outcome": failure, "reason": reason])
                return try outcome.get()
            case .retry(let delay, let reason, let source):
                if case .exhausted(let retries, let allowance)? = budget?.retryRequested() {
                    context.record(
                        .retryGivenUp, "Not retrying \(reason): the retry budget is exhausted (\(retries) of \(allowance) used)",
                        attributes: ["attempt": "\(attempt)", "outcome": reason, "reason": "retry budget exhausted",
                                     "budgetRetries": "\(retries)", "budgetAllowance": "\(allowance)"])
                    return try outcome.get()
                }
                context.record(
                    .retryScheduled, "Retrying after \(reason) in \(Quantity.duration(delay)) (\(source.rawValue))",
                    attributes: ["attempt": "\(attempt + 1)", "delayMs": delay.storedMilliseconds, "reason": reason,
                                 "source": source.rawValue])
                if case .success(let response) = outcome { context.tracker.keepAnswerBeforeRetry(response) }
                context.annotations.retryReason = reason
                context.annotations.retryDelay = delay
                if delay > .zero {
                    try await context.clock.sleep(for: delay)
                } else {
                    try Task.checkCancellation()
                }
            }
        }
        preconditionFailure("the retry loop ends by returning or throwing")
    }
}

extension ExchangeEventKind {
    /// An outcome worth retrying was delivered instead: attempts used, deadline, budget, method, body or Retry-After.
    public static let retryGivenUp = Self(rawValue: "retry-give-up")
}
