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
    ///
    /// Called on the chain's executor (`nonisolated(nonsending)`); a transport whose `send` is a plain `async`
    /// function still conforms and moves to the global executor first, as every async function does.
    nonisolated(nonsending) func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse
}

/// Intercepts requests on their way to the transport and responses on their way back.
///
/// Middleware run in array order on the way out and in reverse on the way back, as in swift-openapi-runtime:
/// `[A, B]` means A sees the request first and the response last. A middleware may call `next` zero times
/// (short-circuit), once, or several times (retry); every call to the transport is recorded as one attempt.
///
/// The chain runs on its caller's executor: `intercept` and `next` are `nonisolated(nonsending)` (SE-0461), so
/// passing through a middleware costs no executor hop, nor the check for one. A middleware written before
/// Loupe required this spells `next`'s type with `nonisolated(nonsending)` (or ``Next``) and marks its
/// `intercept` the same way; see "Writing middleware" in the Loupe documentation.
public protocol ClientMiddleware: Sendable {
    /// The rest of the chain, as a middleware receives it: runs on the caller's executor.
    typealias Next = nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse

    /// Handles one request, calling `next` to continue down the chain.
    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse
}
