import Foundation
import HTTPTypes

extension Client {
    /// Downloads the response body of `request` to `destination` in constant memory, with progress.
    ///
    /// The body is written chunk by chunk to a temporary file beside `destination` and moved into place (replacing
    /// any file there) only when complete and accepted by ``ClientConfiguration/acceptableStatus``. Failure or
    /// cancellation deletes the temporary file and ends the progress stream. The exchange is recorded like any
    /// other, its attempts included, with an empty response body and a `download` event giving the size. Constant
    /// memory needs a ``StreamingClientTransport``; any other transport works, with the body collected first.
    public func download(
        _ request: HTTPRequest,
        to destination: URL,
        options: RequestOptions = RequestOptions(),
        progressBuffering: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) -> TransferTask<DownloadResponse> {
        let (channel, progress) = ProgressChannel.make(bufferingPolicy: progressBuffering)
        let task = Task {
            defer { channel.finish() }
            return try await performDownload(request, body: nil, to: destination, options: options, progress: channel)
        }
        return TransferTask(progress: progress, task: task)
    }

    /// Downloads the endpoint's response body to `destination`; see ``download(_:to:options:progressBuffering:)``.
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        progressBuffering: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) -> TransferTask<DownloadResponse> {
        let (channel, progress) = ProgressChannel.make(bufferingPolicy: progressBuffering)
        let task = Task {
            defer { channel.finish() }
            let request: HTTPRequest
            let body: RequestBody?
            do {
                (request, body) = try makeRequest(endpoint)
            } catch {
                throw ClientError(operation: endpoint.operationName, request: nil, stage: .encoding, underlyingError: error)
            }
            let options = RequestOptions(operation: endpoint.operationName, timeout: endpoint.timeout)
            return try await performDownload(request, body: body, to: destination, options: options, progress: channel)
        }
        return TransferTask(progress: progress, task: task)
    }

    private func performDownload(
        _ request: HTTPRequest, body: RequestBody?, to destination: URL, options: RequestOptions, progress: ProgressChannel
    ) async throws -> DownloadResponse {
        let file = DownloadFile(destination: destination)
        defer { file.discard() }
        let path = destination.path
        // Acceptable responses stream into the file; others keep a bounded body in memory, so the error carries it
        // and the file is never touched. The recorder sees the head and the size, not the bytes.
        var transport = BodyStreamingTransport(
            base: self.transport, sink: file,
            streaming: ResponseStreaming(streams: configuration.acceptableStatus, keptPrefix: 0),
            ledger: StreamLedger(), progress: progress)
        transport.streamed = { context, written in
            context.record(.download, "wrote \(written) bytes to the file", attributes: [
                "bytes": "\(written)", "file": path, "mode": "streamed",
            ])
        }
        transport.buffered = { context, response in
            context.record(.download, "the transport cannot stream: the body was collected in memory",
                           attributes: ["bytes": "\(response.body.count)", "file": path, "mode": "buffered"])
            progress.report(Int64(response.body.count), of: Int64(response.body.count))
        }
        // Installing the file is the decoding step, so a failed move is recorded as the exchange's failure.
        let response = try await performStreaming(request, body: body, options: options, transport: transport, validate: true) { raw in
            try file.install(body: raw.body)
        }
        return DownloadResponse(
            head: response.head, fileURL: destination, byteCount: response.value, exchangeID: response.exchangeID,
            attempts: response.attempts)
    }
}

/// What a finished download produced: the response head and the file.
public struct DownloadResponse: Sendable {
    /// The final response head.
    public var head: HTTPResponse
    /// Where the body now is.
    public var fileURL: URL
    /// The body's size in bytes.
    public var byteCount: Int64
    /// The recorder's id for this exchange.
    public var exchangeID: UUID
    /// Every attempt, in order.
    public var attempts: [AttemptMetrics]

    /// The final status.
    public var status: HTTPResponse.Status { head.status }
}
