import Foundation
import HTTPTypes

/// Adds `Authorization: Basic …` (RFC 7617) to every request that does not already carry an `Authorization` field.
///
/// A request that sets its own `Authorization` keeps it: the caller knows better than a client-wide default.
public struct BasicAuthMiddleware: ClientMiddleware {
    /// The field value sent, `Basic base64(username:password)`.
    public let headerValue: String

    /// Authenticates every request as `username` with `password` (encoded as UTF-8, as RFC 7617 recommends).
    public init(username: String, password: String) {
        headerValue = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    public func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        guard request.headerFields[.authorization] == nil else { return try await next(request, body, context) }
        var request = request
        request.headerFields[.authorization] = headerValue
        return try await next(request, body, context)
    }
}
