import Foundation
import HTTPTypes

/// Sends one HTTP request on the wire and returns the response: the bottom of the chain.
///
/// Implement a transport to move bytes (AsyncHTTPClient, URLSession, an in-process fake). Implement a
/// ``ClientMiddleware`` instead to change requests or responses, or to decide whether and when to send them.
///
/// A transport throws ``TransportError`` for wire failures so that policies such as retry can classify them
/// without knowing the transport, honours `context.timeout`, stops when the calling task is cancelled, and calls
/// `context.attempt?.markRequestSent()` / `markFirstByte()` when it can observe those moments.
public protocol ClientTransport: Sendable {
    /// Sends `request` with `body` and returns the response head and collected body.
    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse
}

/// Intercepts requests on their way to the transport and responses on their way back.
///
/// Middleware run in array order on the way out and in reverse on the way back, as in swift-openapi-runtime:
/// `[A, B]` means A sees the request first and the response last. A middleware may call `next` zero times
/// (short-circuit), once, or several times (retry); every call to the transport is recorded as one attempt.
public protocol ClientMiddleware: Sendable {
    /// Handles one request, calling `next` to continue down the chain.
    func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse
}
