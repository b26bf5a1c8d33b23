import Foundation
import HTTPTypes

/// Lets identical requests in flight at the same time share one transport call.
///
/// Requests are identical when method, URL, the ``Configuration/keyFields`` and the body bytes are equal; only
/// ``Configuration/methods`` (GET and HEAD by default) are merged, never a streamed body. The first request
/// (the leader) is sent; the others join it and each receives its own copy of the same response or error,
/// recorded as a `.dedupJoin` event and no attempt of their own.
///
/// Cancellation: a cancelled joiner leaves at once. A cancelled leader fails with cancellation at once, and if
/// others still wait the first of them is promoted and sends the request itself (its own attempt), so one
/// caller's cancellation never fails the others; the cost is a second transport call.
///
/// Opt out per request with the ``optOutField`` header field (removed before sending) or per operation with
/// ``Configuration/shouldDeduplicate``.
public struct DeduplicationMiddleware: ClientMiddleware {
    /// Which requests are merged and what makes them identical.
    public struct Configuration: Sendable {
        /// Methods whose requests may be merged.
        public var methods: Set<HTTPRequest.Method> = [.get, .head]
        /// Header fields that must also be equal (a different `Accept` or `Authorization` is another request).
        public var keyFields: [HTTPField.Name] = [.accept, .authorization]
        /// Whether a request (and its operation name) may be merged at all.
        public var shouldDeduplicate: @Sendable (_ request: HTTPRequest, _ operation: String) -> Bool = { _, _ in true }

        public init() {}
    }

    /// A request carrying this header field (any value) is sent on its own; the field is removed before sending.
    public static let optOutField = HTTPField.Name("Loupe-No-Dedup")!

    private let configuration: Configuration
    private let registry = DeduplicationRegistry()

    /// Merges identical in-flight requests as `configuration` says.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Distinct requests in flight now (joiners not counted).
    public var inFlightRequests: Int { registry.inFlightCount }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        if request.headerFields[Self.optOutField] != nil {
            var request = request
            request.headerFields[Self.optOutField] = nil
            return try await next(request, body, context)
        }
        guard configuration.methods.contains(request.method),
              configuration.shouldDeduplicate(request, context.operation),
              let key = DeduplicationKey(request, body: body, fields: configuration.keyFields)
        else { return try await next(request, body, context) }

        let (waiter, leads) = registry.arriveIfFirst(key, exchange: context.exchangeID)
        if leads { return try await lead(key, waiter: waiter, request, body, context, next) }
        let resolution = await registry.arrive(key, waiter: waiter, exchange: context.exchangeID) { leader in
            context.record(.dedupJoin, "joined the identical in-flight \(key) of exchange \(leader)",
                           attributes: ["leader": leader.uuidString, "request": key.description])
        }
        switch resolution {
        case .lead(let promotedFrom):
            if let promotedFrom {
                context.record(.dedupJoin, "exchange \(promotedFrom) was cancelled; sending \(key) in its place",
                               attributes: ["promotedFrom": promotedFrom.uuidString, "request": key.description])
            }
            return try await lead(key, waiter: waiter, request, body, context, next)
        case .response(let response): return response
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    private nonisolated(nonsending) func lead(
        _ key: DeduplicationKey, waiter: UInt64, _ request: HTTPRequest, _ body: RequestBody?, _ context: RequestContext,
        _ next: Next
    ) async throws -> RawResponse {
        do {
            let response = try await next(request, body, context)
            registry.finish(key, leader: waiter, with: .success(response))
            return response
        } catch {
            // A cancelled leader's error is not the joiners' answer: one of them sends instead.
            if Task.isCancelled || error is CancellationError || (error as? TransportError)?.kind == .cancelled {
                registry.leaderCancelled(key, leader: waiter, exchange: context.exchangeID)
            } else {
                registry.finish(key, leader: waiter, with: .failure(error))
            }
            throw error
        }
    }
}
