import HTTPTypes

/// How ``AuthenticationMiddleware`` authenticates requests: the seam between a credential and the request chain,
/// in the spirit of Alamofire's `Authenticator`.
///
/// The middleware asks for a credential, applies it, sends, and when ``isAuthenticationFailure(_:)`` says the
/// credential was rejected, asks ``refresh(rejected:context:)`` for one to retry with, once. Implementations:
/// ``BearerTokenAuthenticator`` (a ``TokenProvider`` with single-flight refresh), ``StaticTokenAuthenticator``
/// (a fixed bearer token) and ``BasicAuthenticator`` (RFC 7617).
public protocol Authenticator: Sendable {
    /// What is applied to a request: a token, a user and password, a signed header.
    associatedtype AuthCredential: Sendable

    /// The credential a request should carry now, loading or refreshing it first when needed (waiting, if another
    /// request is already doing so). `nil` sends the request unauthenticated, as it is.
    nonisolated(nonsending) func credential(for request: HTTPRequest, context: RequestContext) async throws -> AuthCredential?

    /// Writes `credential` into `request`, usually as its `Authorization` field.
    func apply(_ credential: AuthCredential, to request: inout HTTPRequest)

    /// Whether `response` means the credential it was sent with was rejected (401 by default).
    func isAuthenticationFailure(_ response: RawResponse) -> Bool

    /// The server rejected `rejected`: the credential to retry with. Comparing generations comes first: when a
    /// newer credential already replaced `rejected` (another request refreshed meanwhile), that one is returned
    /// as ``CredentialRefresh/newer(_:)`` and nothing is refreshed.
    nonisolated(nonsending) func refresh(rejected: AuthCredential, context: RequestContext) async throws -> CredentialRefresh<AuthCredential>

    /// Which credential this is in the authenticator's history (1, 2, 3…), recorded on each attempt as
    /// `auth.generation`; `nil` for credentials that never change.
    func generation(of credential: AuthCredential) -> Int?
}

extension Authenticator {
    public func isAuthenticationFailure(_ response: RawResponse) -> Bool { response.status == .unauthorized }
    public func generation(of credential: AuthCredential) -> Int? { nil }
}

/// What ``Authenticator/refresh(rejected:context:)`` found to retry a rejected request with.
public enum CredentialRefresh<Value: Sendable>: Sendable {
    /// Nothing can replace the credential (it is fixed): the rejection is returned to the caller as it is.
    case unavailable
    /// The rejected credential was older than the current one: retry with the current one; nothing was refreshed.
    case newer(Value)
    /// A refresh replaced the rejected credential with this one.
    case refreshed(Value)
}
