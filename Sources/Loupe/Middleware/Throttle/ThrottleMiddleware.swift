import Foundation
import HTTPTypes

/// Caps concurrent requests per client and per host; the rest wait in a queue ordered by priority
/// (``RequestMetadata/priority``, higher first), then arrival.
///
/// A request waiting for a permit can be cancelled: it leaves the queue and holds nothing. A running request's
/// permit is returned however it ends (response, error, cancellation), so permits never leak. Waits are
/// recorded as `.throttleWait` events with their duration on the client's clock.
///
/// Requests made inside a token refresh (``BearerTokenMiddleware/isInsideTokenRefresh``) bypass the throttle:
/// the requests waiting for that refresh may hold every permit, and the refresh must not queue behind them.
public struct ThrottleMiddleware: ClientMiddleware {
    private let limiter: ThrottleLimiter

    /// At most `maxConcurrent` requests in flight through this middleware, and at most `maxConcurrentPerHost`
    /// to any one host (`host:port`); `nil` means no such limit.
    public init(maxConcurrent: Int? = 8, maxConcurrentPerHost: Int? = nil) {
        limiter = ThrottleLimiter(maxConcurrent: maxConcurrent, maxConcurrentPerHost: maxConcurrentPerHost)
    }

    /// Permits in use and requests waiting, now.
    public var snapshot: ThrottleSnapshot { limiter.snapshot }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        if BearerTokenMiddleware.isInsideTokenRefresh { return try await next(request, body, context) }
        let host = request.authority ?? ""
        if !limiter.acquireIfFree(host: host) { try await waitForPermit(host: host, context: context) }
        defer { limiter.release(host: host) }
        return try await next(request, body, context)
    }

    /// Queues for a permit, recording the wait; throws (holding nothing) when cancelled while queued.
    private nonisolated(nonsending) func waitForPermit(host: String, context: RequestContext) async throws {
        let priority = RequestMetadata.current.priority
        let (acquisition, waited) = await Stopwatch.measure(on: context.clock) {
            await limiter.acquire(host: host, priority: priority)
        }
        switch acquisition {
        case .immediate:
            break
        case .waited(let position, let limit):
            context.record(.throttleWait, "waited \(Quantity.duration(waited)) for a \(limit) permit (\(host)), queued at position \(position)",
                           attributes: ["waitMs": waited.storedMilliseconds, "limit": limit.rawValue,
                                        "host": host, "position": "\(position)", "priority": priority.description,
                                        "outcome": "granted"])
        case .cancelled:
            context.record(.throttleWait, "left the throttle queue after \(Quantity.duration(waited)) (cancelled)",
                           attributes: ["waitMs": waited.storedMilliseconds, "host": host, "outcome": "cancelled"])
            throw CancellationError()
        }
    }
}
