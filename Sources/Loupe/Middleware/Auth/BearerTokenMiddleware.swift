import Foundation
import HTTPTypes

/// Sends `Authorization: Bearer <token>` from a ``TokenProvider`` and refreshes the token, single-flight.
///
/// - Concurrent 401s cause one refresh; every request that got one waits for it and is retried once with the
///   new credential. A 401 for a credential older than the current one is retried with the current one and
///   refreshes nothing (Alamofire #3877).
/// - A failed refresh fails every request that waited for it with the same ``TokenRefreshError``.
/// - A credential that has expired (within ``Configuration/refreshLeeway``) is refreshed before sending.
/// - Waiting is cancellable: a cancelled request leaves, the refresh goes on for the others.
/// - At most ``Configuration/refreshLimit`` refreshes happen per window; beyond it requests fail at once.
/// - The provider runs with ``isInsideTokenRefresh`` set, so its own requests through this client pass
///   through untouched instead of waiting for the refresh they are part of.
/// - A request that already carries `Authorization` is sent as it is and never refreshed for.
///
/// Each wait is recorded as a `.tokenRefreshWait` event with its duration on the client's clock, and each
/// attempt is annotated with the credential generation it carried (`auth.generation`). Place this middleware
/// before ``ThrottleMiddleware`` so that requests waiting for a refresh do not hold throttle permits.
public struct BearerTokenMiddleware: ClientMiddleware {
    /// Tuning and injected time.
    public struct Configuration: Sendable {
        /// Refresh this long before the credential's expiry rather than send a token about to die.
        public var refreshLeeway: Duration = .zero
        /// Stops refresh storms: at most this many refreshes per window.
        public var refreshLimit = TokenRefreshLimit()
        /// Wall-clock time, compared with ``Credential/expiresAt`` and used for the refresh limit's window.
        public var now: @Sendable () -> Date = { Date() }
        /// Which responses mean "this credential was rejected" (401 by default).
        public var isAuthenticationFailure: @Sendable (RawResponse) -> Bool = { $0.status == .unauthorized }

        public init() {}
    }

    /// `true` in the task that runs a token refresh: requests made there bypass this middleware (and the throttle).
    @TaskLocal public static var isInsideTokenRefresh = false

    private let refresher: TokenRefresher
    private let configuration: Configuration

    /// Authenticates requests with credentials from `provider`.
    public init(provider: any TokenProvider, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.refresher = TokenRefresher(
            provider: provider, limit: configuration.refreshLimit, leeway: configuration.refreshLeeway,
            now: configuration.now)
    }

    /// The credential in use (`nil` before the first request).
    public var currentCredential: Credential? { refresher.currentCredential }

    /// How many requests are waiting for a refresh right now.
    public var waitingRequests: Int { refresher.waitingCount }

    public func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        if Self.isInsideTokenRefresh || request.headerFields[.authorization] != nil {
            return try await next(request, body, context)
        }
        let credential: Credential
        if let usable = refresher.usableCredential() {
            credential = usable
        } else {
            credential = try await obtain(context) { await refresher.credentialForRequest() }.0
        }
        let response = try await next(Self.authorize(request, with: credential), body, Self.annotate(context, credential))
        // Once only: a 401 to a fresh credential is the server's answer, not a reason to refresh again.
        guard configuration.isAuthenticationFailure(response), body?.isReplayable ?? true else { return response }
        let (retryCredential, round) = try await obtain(context) {
            await refresher.credentialAfterRejection(of: credential.generation)
        }
        var retryContext = Self.annotate(context, retryCredential)
        retryContext.annotations.retryReason = round == nil
            ? "401 with stale credential generation \(credential.generation); current is \(retryCredential.generation)"
            : "401 with credential generation \(credential.generation); refreshed to \(retryCredential.generation)"
        return try await next(Self.authorize(request, with: retryCredential), body, retryContext)
    }

    /// Asks the refresher, recording how long the request waited and how the wait ended.
    private func obtain(
        _ context: RequestContext,
        _ ask: () async -> TokenRefresher.Outcome
    ) async throws -> (Credential, TokenRefresher.Round?) {
        let (outcome, waited) = await WaitMeasurement.measure(on: context.clock, ask)
        if let round = outcome.waitedFor { Self.recordWait(context, round: round, outcome: outcome.result, waited: waited) }
        switch outcome.result {
        case .credential(let credential): return (credential, outcome.waitedFor)
        case .failed(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    private static func recordWait(
        _ context: RequestContext, round: TokenRefresher.Round, outcome: TokenRefresher.Outcome.Result, waited: Duration
    ) {
        var attributes = ["round": "\(round.id)", "trigger": "\(round.trigger)", "waitMs": WaitMeasurement.milliseconds(waited)]
        let ending: String
        switch outcome {
        case .credential(let credential):
            attributes["outcome"] = "refreshed"
            attributes["generation"] = "\(credential.generation)"
            ending = "got generation \(credential.generation)"
        case .failed(let error):
            attributes["outcome"] = "failed"
            ending = "it failed: \(error.reason)"
        case .cancelled:
            attributes["outcome"] = "cancelled"
            ending = "left (cancelled)"
        }
        context.record(.tokenRefreshWait, "waited \(waited) for token refresh \(round.id) (\(round.trigger)); \(ending)",
                       attributes: attributes)
    }

    private static func authorize(_ request: HTTPRequest, with credential: Credential) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(credential.token)"
        return request
    }

    private static func annotate(_ context: RequestContext, _ credential: Credential) -> RequestContext {
        var context = context
        context.annotations.extra["auth.generation"] = "\(credential.generation)"
        return context
    }
}
