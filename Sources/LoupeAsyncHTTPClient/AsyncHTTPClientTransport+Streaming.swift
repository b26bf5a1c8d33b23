import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOFoundationCompat

extension AsyncHTTPClientTransport: StreamingClientTransport {
    /// Returns once the head has arrived; the body is read chunk by chunk as the caller consumes it, so
    /// `Client.download(_:to:)` writes large bodies to disk in constant memory.
    ///
    /// A timeout set for the attempt (``RequestContext/timeout``) bounds the body too, as in ``send(_:body:context:)``:
    /// AHC's read timeout restarts with every chunk, so a trickling server would otherwise hold the stream forever.
    /// Without one, a stream (a large download) runs as long as bytes keep coming.
    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        let deadline = context.timeout.map { (limit: $0, at: ContinuousClock.now + $0) }
        let response: HTTPClientResponse
        do {
            response = try await executeHead(request, body: body, context: context)
        } catch {
            throw failure(error, request: request, context: context)
        }
        let iterator = BodyIterator(response.body.makeAsyncIterator())
        let body = AsyncThrowingStream(unfolding: {
            do {
                guard let deadline else { return try await iterator.next() }
                let remaining = deadline.at - ContinuousClock.now
                guard remaining > .zero else { throw AttemptDeadline.timedOut(deadline.limit) }
                return try await AttemptDeadline.run(remaining) { try await iterator.next() }
            } catch let error as TransportError {
                throw error
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
