import Foundation
import HTTPTypes

extension Client {
    /// Sends `body` with `request`, reporting progress as the transport takes each chunk (at most `chunkSize`).
    ///
    /// Like ``execute(_:body:options:)``, any status is returned rather than thrown. `progressBuffering` bounds how
    /// many unread progress values are kept; the newest always survives.
    public func upload(
        _ request: HTTPRequest,
        body: RequestBody,
        options: RequestOptions = RequestOptions(),
        chunkSize: Int = 64 * 1024,
        progressBuffering: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) -> TransferTask<ClientResponse<Data>> {
        let reporting = ProgressReportingBody(body, chunkSize: chunkSize, bufferingPolicy: progressBuffering)
        let task = Task {
            defer { reporting.finish() }
            return try await execute(request, body: reporting.body, options: options)
        }
        return TransferTask(progress: reporting.progress, task: task)
    }
}
