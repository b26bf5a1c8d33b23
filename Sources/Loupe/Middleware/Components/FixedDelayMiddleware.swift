import Foundation
import HTTPTypes

/// Waits a fixed time on the client's clock before passing each request on: simulated latency, or pacing.
///
/// Placed before a retry middleware it delays each logical request once; placed after, it delays every attempt.
/// The wait uses `context.clock`, so tests drive it with a manual clock, and it is recorded as a
/// `fixed-delay` event and as the attempt annotation `delay`.
public struct FixedDelayMiddleware: ClientMiddleware {
    /// How long each request waits.
    public let delay: Duration

    /// Delays every request by `delay` (zero or less passes requests straight on).
    public init(delay: Duration) {
        self.delay = delay
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        guard delay > .zero else { return try await next(request, body, context) }
        context.record(.fixedDelay, "waiting \(Quantity.duration(delay)) before sending", attributes: ["delayMs": delay.storedMilliseconds])
        try await context.clock.sleep(for: delay)
        var context = context
        context.annotations.note("delayMs", delay.storedMilliseconds)
        return try await next(request, body, context)
    }
}

extension ExchangeEventKind {
    /// A ``FixedDelayMiddleware`` held the request back.
    public static let fixedDelay = Self(rawValue: "fixed-delay")
}
