import Foundation
import HTTPTypes

/// `Authorization: Bearer <token>` from a ``TokenProvider``, refreshed single-flight.
///
/// - Concurrent rejections cause one refresh; every request that got one waits for it and is retried once with
///   the new credential. A rejection of a credential older than the current one is answered with the current one
///   and refreshes nothing (Alamofire #3877).
/// - A failed refresh fails every request that waited for it with the same ``TokenRefreshError``.
/// - A credential that has expired (within ``Configuration/refreshLeeway``) is refreshed before sending.
/// - Waiting is cancellable: a cancelled request leaves, the refresh goes on for the others.
/// - At most ``Configuration/refreshLimit`` refreshes happen per window; beyond it requests fail at once.
/// - The provider runs with ``BearerTokenMiddleware/isInsideTokenRefresh`` set, so its own requests through the
///   same client are sent unauthenticated instead of waiting for the refresh they are part of.
///
/// Copies share one credential history. Each wait is recorded as a `.tokenRefreshWait` event with its duration
/// on the client's clock.
public struct BearerTokenAuthenticator: Authenticator {
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

    private let refresher: TokenRefresher
    private let configuration: Configuration

    /// Authenticates with credentials from `provider`.
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

    public nonisolated(nonsending) func credential(for request: HTTPRequest, context: RequestContext) async throws -> Credential? {
        if BearerTokenMiddleware.isInsideTokenRefresh { return nil }
        // The common case: one lock, no suspension.
        if let usable = refresher.usableCredential() { return usable }
        return try await obtain(context) { await refresher.credentialForRequest() }.0
    }

    public func apply(_ credential: Credential, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Bearer \(credential.token)"
    }

    public func isAuthenticationFailure(_ response: RawResponse) -> Bool {
        configuration.isAuthenticationFailure(response)
    }

    public nonisolated(nonsending) func refresh(rejected: Credential, context: RequestContext) async throws -> CredentialRefresh<Credential> {
        let (credential, round) = try await obtain(context) {
            await refresher.credentialAfterRejection(of: rejected.generation)
        }
        return round == nil ? .newer(credential) : .refreshed(credential)
    }

    public func generation(of credential: Credential) -> Int? { credential.generation }

    /// Asks the refresher, recording how long the request waited and how the wait ended.
    private nonisolated(nonsending) func obtain(
        _ context: RequestContext,
        _ ask: () async -> TokenRefresher.Outcome
    ) async throws -> (Credential, TokenRefresher.Round?) {
        let (outcome, waited) = await Stopwatch.measure(on: context.clock, ask)
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
        var attributes = ["round": "\(round.id)", "trigger": "\(round.trigger)", "waitMs": waited.storedMilliseconds]
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
        context.record(.tokenRefreshWait, "waited \(Quantity.duration(waited)) for token refresh \(round.id) (\(round.trigger)); \(ending)",
                       attributes: attributes)
    }
}
