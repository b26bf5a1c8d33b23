import Foundation
import HTTPTypes

/// The bottom of a download's chain: writes an acceptable response's body to the ``DownloadFile`` chunk by chunk,
/// reporting progress, and passes the head up with an empty body (the recorder sees the head, not the bytes).
/// Unacceptable responses keep a bounded body in memory, so the error carries it and the file is never touched.
struct DownloadTransport: ClientTransport {
    let base: any ClientTransport
    let file: DownloadFile
    let progress: ProgressChannel
    let acceptable: @Sendable (HTTPResponse.Status) -> Bool
    /// How much of an error response's body is kept.
    var errorBodyLimit = 1024 * 1024

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard let streaming = base as? any StreamingClientTransport else {
            let response = try await base.send(request, body: body, context: context)
            guard acceptable(response.status) else { return response }
            context.record(.download, "the transport cannot stream: the body was collected in memory",
                           attributes: ["bytes": "\(response.body.count)", "file": file.destination.path, "mode": "buffered"])
            progress.report(Int64(response.body.count), of: Int64(response.body.count))
            return response
        }
        let response = try await streaming.stream(request, body: body, context: context)
        guard acceptable(response.head.status) else {
            return RawResponse(head: response.head, body: try await Self.prefix(of: response.body, limit: errorBodyLimit))
        }
        let total = response.head.headerFields[.contentLength].flatMap { Int64($0) }
        let written = try await write(response.body, total: total)
        if let total, written != total {
            throw TransportError(.connectionReset, "the body ended after \(written) of \(total) bytes")
        }
        file.attemptCompleted(bytes: written)
        context.record(.download, "wrote \(written) bytes to the file", attributes: [
            "bytes": "\(written)", "file": file.destination.path, "mode": "streamed",
        ])
        return RawResponse(head: response.head)
    }

    /// Writes every chunk as it arrives; one chunk at a time is in memory.
    private func write(_ body: AsyncThrowingStream<Data, any Error>, total: Int64?) async throws -> Int64 {
        let handle = try file.beginAttempt()
        defer { try? handle.close() }
        progress.report(0, of: total)
        var written: Int64 = 0
        for try await chunk in body {
            try Task.checkCancellation()
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw DownloadError(.cannotWrite, file.temporary, reason: String(describing: error))
            }
            written += Int64(chunk.count)
            progress.report(written, of: total)
        }
        // A stream ends quietly when its reader is cancelled: that is not a complete body.
        try Task.checkCancellation()
        return written
    }

    static func prefix(of body: AsyncThrowingStream<Data, any Error>, limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in body {
            data.append(chunk.prefix(limit - data.count))
            if data.count >= limit { break }
        }
        return data
    }
}

extension ExchangeEventKind {
    /// A download wrote its body to a file (attributes `bytes`, `file`, `mode`).
    public static let download = Self(rawValue: "download")
}
