import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOFoundationCompat

extension AsyncHTTPClientTransport: StreamingClientTransport {
    /// Returns once the head has arrived; the body is read chunk by chunk as the caller consumes it, so
    /// `Client.download(_:to:)` writes large bodies to disk in constant memory.
    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        let response: HTTPClientResponse
        do {
            response = try await executeHead(request, body: body, context: context)
        } catch {
            throw failure(error, request: request, context: context)
        }
        let iterator = BodyIterator(response.body.makeAsyncIterator())
        let body = AsyncThrowingStream(unfolding: {
            do {
                return try await iterator.next()
            } catch {
                throw TransportErrorMapping.map(error)
            }
        })
        return StreamedResponse(head: Self.makeHead(response), body: body, httpVersion: Self.versionText(response.version))
    }
}

/// Holds AHC's body iterator for the stream built around it.
// @unchecked Sendable: the iterator is advanced only by `AsyncThrowingStream(unfolding:)`, which calls its closure
// once at a time for its single consumer, so there is never concurrent access to `iterator`.
private final class BodyIterator: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator

    init(_ iterator: HTTPClientResponse.Body.AsyncIterator) {
        self.iterator = iterator
    }

    func next() async throws -> Data? {
        try await iterator.next().map { Data(buffer: $0) }
    }
}
