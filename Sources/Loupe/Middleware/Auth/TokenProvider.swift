import Foundation

/// Where ``BearerTokenAuthenticator`` (and ``BearerTokenMiddleware``) gets credentials: the seam to your login and token-refresh code.
///
/// The authenticator calls these at most once at a time (single-flight), from a task of its own in which
/// ``BearerTokenMiddleware/isInsideTokenRefresh`` is `true`, so an implementation may call the same ``Client``
/// to reach the token endpoint: those requests bypass authentication instead of waiting for themselves.
public protocol TokenProvider: Sendable {
    /// The credential to start with (from storage or a login); called before the first request.
    func currentCredential() async throws -> Credential

    /// A new credential to replace `rejected`, which the server refused (401) or which has expired.
    func refresh(_ rejected: Credential) async throws -> Credential
}
