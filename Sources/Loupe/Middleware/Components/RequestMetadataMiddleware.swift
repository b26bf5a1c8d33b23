import Foundation
import HTTPTypes

/// Copies the task's ``RequestMetadata`` into the attempt annotations (`priority`, `cache-policy`) so the recorder
/// shows what the caller asked for; place it first. Values left at their defaults are not written.
public struct RequestMetadataMiddleware: ClientMiddleware {
    /// Annotates every request with its metadata.
    public init() {}

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let metadata = RequestMetadata.current
        // Most requests carry the defaults: pass the context on as it is rather than copying it to change nothing.
        guard metadata.priority != .normal || metadata.cachePolicy != nil || metadata.streamsResponseBody else {
            return try await next(request, body, context)
        }
        var context = context
        if metadata.priority != .normal { context.annotations.note("priority", metadata.priority.description) }
        if let policy = metadata.cachePolicy { context.annotations.note("cache-policy", policy.rawValue) }
        if metadata.streamsResponseBody { context.annotations.note("body", "streamed") }
        return try await next(request, body, context)
    }
}
