import HTTPTypes

/// `Authorization: Bearer <token>` with a token that never changes (a CLI flag, a test, a long-lived API key).
///
/// A rejection is returned as it is: there is nothing to refresh with. For tokens that expire, use
/// ``BearerTokenAuthenticator``.
public struct StaticTokenAuthenticator: Authenticator {
    /// The token sent.
    public let token: String

    /// Authenticates every request with `token`.
    public init(token: String) {
        self.token = token
    }

    public nonisolated(nonsending) func credential(for request: HTTPRequest, context: RequestContext) async throws -> String? { token }

    public func apply(_ credential: String, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Bearer \(credential)"
    }

    public nonisolated(nonsending) func refresh(rejected: String, context: RequestContext) async throws -> CredentialRefresh<String> {
        .unavailable
    }
}
