import HTTPTypes

/// Adds `Authorization: Basic …` (RFC 7617) to every request that does not already carry an `Authorization` field:
/// an ``AuthenticationMiddleware`` driving a ``BasicAuthenticator``.
///
/// A request that sets its own `Authorization` keeps it: the caller knows better than a client-wide default.
public typealias BasicAuthMiddleware = AuthenticationMiddleware<BasicAuthenticator>

extension AuthenticationMiddleware where A == BasicAuthenticator {
    /// Authenticates every request as `username` with `password` (encoded as UTF-8, as RFC 7617 recommends).
    public init(username: String, password: String) {
        self.init(BasicAuthenticator(username: username, password: password))
    }

    /// The field value sent, `Basic base64(username:password)`.
    public var headerValue: String { authenticator.headerValue }
}
