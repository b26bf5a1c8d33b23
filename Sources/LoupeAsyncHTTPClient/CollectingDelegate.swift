import AsyncHTTPClient
import HTTPTypes
import Loupe
import NIOCore
import NIOHTTP1

/// Collects one response on the event loop, through AsyncHTTPClient's delegate API: the buffered path of
/// ``AsyncHTTPClientTransport/send(_:body:context:)``.
///
/// The async API hands the body over through an async sequence and bounds a whole attempt only with a timer task
/// racing it; here every chunk is appended where it arrives and AHC's own deadline covers the body too, so a request
/// costs no extra task, timer thread or cross-thread wake-up. It also reports when the request was written, which
/// the async API does not.
final class CollectingDelegate: HTTPClientResponseDelegate {
    typealias Response = RawResponse

    let progress: ResponseProgress
    let limit: Int
    let attempt: AttemptHandle?

    init(progress: ResponseProgress, limit: Int, attempt: AttemptHandle?) {
        self.progress = progress
        self.limit = limit
        self.attempt = attempt
    }

    func didSendRequest(task: HTTPClient.Task<RawResponse>) {
        attempt?.markRequestSent()
    }

    func didReceiveHead(task: HTTPClient.Task<RawResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        attempt?.markFirstByte()
        progress.begin(
            AsyncHTTPClientTransport.makeHead(status: head.status, headers: head.headers),
            version: AsyncHTTPClientTransport.versionText(head.version))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<RawResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard progress.append(buffer, limit: limit) else {
            return task.eventLoop.makeFailedFuture(Self.tooLarge(limit))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<RawResponse>) throws -> RawResponse {
        guard let response = progress.response else { throw TransportError(.other, "the response head was lost") }
        return response
    }

    /// The error for a body past the transport's limit, whichever path noticed.
    static func tooLarge(_ limit: Int) -> TransportError {
        TransportError(.other, """
            the response body is larger than \(limit) bytes, this transport's limit; \
            raise it with AsyncHTTPClientTransport.Options(maxResponseBytes:)
            """)
    }
}
