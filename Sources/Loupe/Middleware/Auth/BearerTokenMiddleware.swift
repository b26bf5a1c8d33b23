import Foundation
import HTTPTypes

/// Sends `Authorization: Bearer <token>` from a ``TokenProvider`` and refreshes the token, single-flight: an
/// ``AuthenticationMiddleware`` driving a ``BearerTokenAuthenticator`` (which documents the refresh rules).
///
/// Each wait for a refresh is recorded as a `.tokenRefreshWait` event with its duration on the client's clock,
/// and each attempt is annotated with the credential generation it carried (`auth.generation`). Place this
/// middleware before ``ThrottleMiddleware`` so that requests waiting for a refresh do not hold throttle permits.
public struct BearerTokenMiddleware: ClientMiddleware {
    /// Tuning and injected time.
    public typealias Configuration = BearerTokenAuthenticator.Configuration

    /// `true` in the task that runs a token refresh: requests made there bypass authentication and the throttle.
    @TaskLocal public static var isInsideTokenRefresh = false

    private let middleware: AuthenticationMiddleware<BearerTokenAuthenticator>

    /// Authenticates requests with credentials from `provider`.
    public init(provider: any TokenProvider, configuration: Configuration = Configuration()) {
        middleware = AuthenticationMiddleware(BearerTokenAuthenticator(provider: provider, configuration: configuration))
    }

    /// The authenticator this middleware drives.
    public var authenticator: BearerTokenAuthenticator { middleware.authenticator }

    /// The credential in use (`nil` before the first request).
    public var currentCredential: Credential? { middleware.authenticator.currentCredential }

    /// How many requests are waiting for a refresh right now.
    public var waitingRequests: Int { middleware.authenticator.waitingRequests }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        try await middleware.intercept(request, body: body, context: context, next: next)
    }
}
