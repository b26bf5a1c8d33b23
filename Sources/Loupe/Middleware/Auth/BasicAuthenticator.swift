import Foundation
import HTTPTypes

/// `Authorization: Basic base64(username:password)` (RFC 7617): a fixed credential, never refreshed.
public struct BasicAuthenticator: Authenticator {
    /// The field value sent, `Basic base64(username:password)`.
    public let headerValue: String

    /// Authenticates as `username` with `password` (encoded as UTF-8, as RFC 7617 recommends).
    public init(username: String, password: String) {
        headerValue = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    public nonisolated(nonsending) func credential(for request: HTTPRequest, context: RequestContext) async throws -> String? { headerValue }

    public func apply(_ credential: String, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = credential
    }

    public nonisolated(nonsending) func refresh(rejected: String, context: RequestContext) async throws -> CredentialRefresh<String> {
        .unavailable
    }
}
