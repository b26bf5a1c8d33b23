import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension AsyncHTTPClientTransport: StreamingClientTransport {
    /// Returns once the head has arrived; the body is read chunk by chunk as the caller consumes it, so
    /// `Client.download(_:to:)` writes large bodies to disk in constant memory.
    ///
    /// The request runs on AHC's delegate API with a ``ResponseBodyPipe``: up to 4 MiB of read buffers wait for the
    /// reader while the connection keeps reading, and past that the connection waits for the reader (see the pipe
    /// for why not AHC's async body). A timeout set for the attempt (``RequestContext/timeout``) bounds the body too, as in
    /// ``send(_:body:context:)``: AHC's read timeout restarts with every chunk, so a trickling server would
    /// otherwise hold the stream forever. Without one, the wait for the head is bounded by
    /// ``Options/defaultTimeout`` and a stream (a large download) runs as long as bytes keep coming.
    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        // Each hop's target as an event, as `send` records them.
        try await stream(request, body: body, context: context, through: ResponseBodyPipe(redirected: { target in
            context.record(.redirect, "followed a redirect to \(target)")
        }))
    }

    /// ``stream(_:body:context:)`` through `pipe` (tests give one with small watermarks and watch its buffer).
    func stream(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext, through pipe: ResponseBodyPipe
    ) async throws -> StreamedResponse {
        let deadline = context.timeout.map { (limit: $0, at: ContinuousClock.now + $0) }
        let head: HTTPResponseHead
        do {
            let outgoing = try Self.makeDelegateRequest(request, body: body, attempt: context.attempt, eventLoop: client.eventLoopGroup.any())
            if let timeout = context.timeout {
                let task = client.execute(request: outgoing, delegate: pipe, deadline: .now() + .nanoseconds(Self.nanoseconds(timeout)))
                pipe.attach(task, headTimeout: nil)
            } else {
                let task = client.execute(request: outgoing, delegate: pipe)
                pipe.attach(task, headTimeout: .nanoseconds(Self.nanoseconds(options.defaultTimeout)))
            }
            head = try await pipe.head()
        } catch {
            pipe.cancel()
            throw failure(explain(error, timeout: context.timeout, partial: nil), request: request, context: context)
        }
        context.attempt?.markFirstByte()
        let response = Self.makeHead(status: head.status, headers: head.headers)
        // The length the decoded body is held to (none for a HEAD's or a 204's, nor for a body AHC inflated).
        let declared = StreamedResponse.expectedBodyLength(of: response, answering: request.method).map { String($0) }
        let reader = PipeReader(pipe, declaredLength: declared)
        let body = AsyncThrowingStream(unfolding: { [self] in
            do {
                if let deadline, ContinuousClock.now >= deadline.at { throw HTTPClientError.deadlineExceeded }
                return try await reader.next()
            } catch {
                reader.pipe.cancel()
                let explained = explain(error, timeout: deadline?.limit, partial: (reader.received, reader.declaredLength))
                throw TransportErrorMapping.map(explained)
            }
        })
        return StreamedResponse(head: response, body: body,
                                httpVersion: Self.versionText(head.version))
    }

    /// The request for AHC's delegate API. A streamed body marks the attempt's request-sent time once its last chunk
    /// has been written, as ``makeRequest(_:body:attempt:)`` does for the async API.
    static func makeDelegateRequest(
        _ request: HTTPRequest, body: RequestBody?, attempt: AttemptHandle?, eventLoop: any EventLoop
    ) throws -> HTTPClient.Request {
        let url = try target(of: request)
        var headers = HTTPHeaders()
        for field in request.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        var outgoing: HTTPClient.Body?
        if let body {
            if let data = body.bufferedData {
                outgoing = .byteBuffer(ByteBuffer(data: data))
            } else {
                let chunks = try body.makeStream()
                outgoing = .stream(contentLength: body.length) { writer in
                    let written = eventLoop.makePromise(of: Void.self)
                    written.completeWithTask {
                        for try await chunk in chunks {
                            try await writer.write(.byteBuffer(ByteBuffer(data: chunk))).get()
                        }
                        attempt?.markRequestSent()
                    }
                    return written.futureResult
                }
            }
        }
        return try HTTPClient.Request(
            url: url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers, body: outgoing)
    }
}

/// The reading end of a ``ResponseBodyPipe`` for the body stream built around it: turns chunks into `Data`,
/// counts them, and cancels the request when the stream is dropped before its end.
// @unchecked Sendable: `next()` is called only by `AsyncThrowingStream(unfolding:)`, once at a time for its single
// consumer, so `received` is never accessed concurrently; the pipe is Sendable.
private final class PipeReader: @unchecked Sendable {
    let pipe: ResponseBodyPipe
    let declaredLength: String?
    /// Body bytes handed on so far.
    private(set) var received = 0

    init(_ pipe: ResponseBodyPipe, declaredLength: String?) {
        self.pipe = pipe
        self.declaredLength = declaredLength
    }

    /// A stream dropped before the end releases the connection; after the end this does nothing.
    deinit { pipe.cancel() }

    /// The next chunks as one `Data`: a single chunk is wrapped without copying, several are joined in one copy.
    func next() async throws -> Data? {
        guard case .chunks(let chunks, let bytes) = try await pipe.read() else { return nil }
        received += bytes
        if chunks.count == 1 { return Data(buffer: chunks[0], byteTransferStrategy: .noCopy) }
        var data = Data(capacity: bytes)
        for chunk in chunks {
            chunk.withUnsafeReadableBytes { data.append($0.assumingMemoryBound(to: UInt8.self)) }
        }
        return data
    }
}
