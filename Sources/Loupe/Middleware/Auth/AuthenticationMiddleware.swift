import HTTPTypes

/// Authenticates every request with an ``Authenticator``, and retries once with a replacement credential when the
/// server rejects the one sent.
///
/// - A request that already carries `Authorization` is sent as it is: the caller knows better than a
///   client-wide default.
/// - Only one retry: a rejection of a fresh credential is the server's answer, not a reason to refresh again.
/// - A body that cannot be replayed is not retried; its rejection is returned.
///
/// Each attempt is annotated with its credential's generation (`auth.generation`) when the authenticator has
/// generations, and a retry says why it happened. Place it inside ``RetryMiddleware`` (every attempt carries the
/// current credential) and outside ``ThrottleMiddleware`` (a refresh wait holds no concurrency permit).
public struct AuthenticationMiddleware<A: Authenticator>: ClientMiddleware {
    /// Where credentials come from.
    public let authenticator: A

    /// Authenticates requests with `authenticator`.
    public init(_ authenticator: A) {
        self.authenticator = authenticator
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        guard request.headerFields[.authorization] == nil,
              let credential = try await authenticator.credential(for: request, context: context) else {
            return try await next(request, body, context)
        }
        let response = try await next(authorize(request, credential), body, annotate(context, credential))
        guard authenticator.isAuthenticationFailure(response), body?.isReplayable ?? true else { return response }
        let retryCredential: A.AuthCredential
        let refreshed: Bool
        switch try await authenticator.refresh(rejected: credential, context: context) {
        case .unavailable: return response
        case .newer(let current): (retryCredential, refreshed) = (current, false)
        case .refreshed(let fresh): (retryCredential, refreshed) = (fresh, true)
        }
        var retryContext = annotate(context, retryCredential)
        retryContext.annotations.retryReason = retryReason(
            status: response.status.code, rejected: credential, retry: retryCredential, refreshed: refreshed)
        return try await next(authorize(request, retryCredential), body, retryContext)
    }

    private func authorize(_ request: HTTPRequest, _ credential: A.AuthCredential) -> HTTPRequest {
        var request = request
        authenticator.apply(credential, to: &request)
        return request
    }

    private func annotate(_ context: RequestContext, _ credential: A.AuthCredential) -> RequestContext {
        guard let generation = authenticator.generation(of: credential) else { return context }
        var context = context
        context.annotations.note("auth.generation", "\(generation)")
        return context
    }

    /// Says which credential was rejected and what replaced it, by generation when there are generations.
    private func retryReason(status: Int, rejected: A.AuthCredential, retry: A.AuthCredential, refreshed: Bool) -> String {
        guard let old = authenticator.generation(of: rejected), let new = authenticator.generation(of: retry) else {
            return refreshed ? "\(status); credential refreshed" : "\(status) with a stale credential; retried with the current one"
        }
        return refreshed
            ? "\(status) with credential generation \(old); refreshed to \(new)"
            : "\(status) with stale credential generation \(old); current is \(new)"
    }
}
