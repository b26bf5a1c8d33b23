import Foundation
import HTTPTypes
import Synchronization

/// The bottom of a streaming exchange's chain (downloads, ``Client/execute(_:body:options:streamingBodyTo:streaming:)``):
/// writes a streaming response's body to a ``ResponseBodySink`` chunk by chunk and passes the head up with only the
/// kept prefix of the body and its whole size, so the recorder stores the prefix and the true size. Responses
/// whose status does not stream keep a bounded body in memory and never touch the sink here.
struct BodyStreamingTransport: ClientTransport {
    let base: any ClientTransport
    let sink: any ResponseBodySink
    let streaming: ResponseStreaming
    let ledger: StreamLedger
    var progress: ProgressChannel?
    /// Called when an attempt streamed its whole body (a download records its event here).
    var streamed: (@Sendable (RequestContext, Int64) -> Void)?
    /// Called when a response that would have streamed came collected from a transport that cannot stream.
    var buffered: (@Sendable (RequestContext, RawResponse) -> Void)?

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard let base = base as? any StreamingClientTransport else {
            let response = try await base.send(request, body: body, context: context)
            try checkLimit(Int64(response.body.count), response: RawResponse(head: response.head, httpVersion: response.httpVersion))
            if streaming.streams(response.status) { buffered?(context, response) }
            return response
        }
        let response = try await base.stream(request, body: body, context: context)
        let head = RawResponse(head: response.head, httpVersion: response.httpVersion)
        guard streaming.streams(response.head.status) else {
            return try await collect(response, limit: streaming.collectedLimit)
        }
        let declared = StreamedResponse.expectedBodyLength(of: response.head, answering: request.method)
        if let declared { try checkLimit(declared, response: head) }
        try ledger.begin(restartable: sink.canRestart, response: head)
        try sink.begin(response.head, httpVersion: response.httpVersion)
        var prefix = Data()
        var written: Int64 = 0
        do {
            progress?.report(0, of: declared)
            for try await chunk in response.body {
                try Task.checkCancellation()
                try checkLimit(written + Int64(chunk.count), response: head)
                try sink.write(chunk)
                if prefix.count < streaming.keptPrefix { prefix.append(chunk.prefix(streaming.keptPrefix - prefix.count)) }
                written += Int64(chunk.count)
                progress?.report(written, of: declared)
            }
            // A stream ends quietly when its reader is cancelled: that is not a complete body.
            try Task.checkCancellation()
            if let declared, written != declared {
                throw TransportError(.connectionReset, "the body ended after \(written) of \(declared) bytes")
            }
            try sink.finish(byteCount: written)
        } catch {
            throw interrupted(error, partial: RawResponse(
                head: response.head, body: prefix, httpVersion: response.httpVersion, bodySize: Int(written)))
        }
        ledger.completed(written)
        streamed?(context, written)
        return RawResponse(head: response.head, body: prefix, httpVersion: response.httpVersion, bodySize: Int(written))
    }

    /// A failure mid-body, carrying what arrived. Past the point of no return (a sink that cannot restart has had
    /// its `begin`), any failure but cancellation becomes ``TransportError/Kind/deliveryInterrupted``: no retry.
    private func interrupted(_ error: any Error, partial: RawResponse) -> any Error {
        if error is CancellationError || (error as? TransportError)?.kind == .cancelled { return error }
        if !sink.canRestart {
            let reason = (error as? TransportError).map { "\($0.kind): \($0.message)" } ?? String(describing: error)
            return TransportError(.deliveryInterrupted, "\(reason), after \(partial.fullBodySize) body bytes had been written",
                                  partialResponse: partial)
        }
        if var failure = error as? TransportError {
            failure.partialResponse = failure.partialResponse ?? partial
            return failure
        }
        return error
    }

    private func checkLimit(_ bytes: Int64, response: RawResponse) throws {
        guard let limit = streaming.maxBodyBytes, bytes > limit else { return }
        throw TransportError(.other, "the response body is larger than the limit of \(limit) bytes", partialResponse: response)
    }

    /// At most `limit` bytes of a body that does not stream; the rest is left unread (the connection is released).
    private func collect(_ response: StreamedResponse, limit: Int) async throws -> RawResponse {
        var data = Data()
        var seen: Int64 = 0
        for try await chunk in response.body {
            seen += Int64(chunk.count)
            try checkLimit(seen, response: RawResponse(head: response.head, body: data, httpVersion: response.httpVersion))
            data.append(chunk.prefix(limit - data.count))
            if data.count >= limit { break }
        }
        return RawResponse(head: response.head, body: data, httpVersion: response.httpVersion)
    }
}

/// What the attempts of one streaming exchange did to its sink: whether one began (a sink that cannot restart
/// must not begin twice) and the size of the body the last complete attempt wrote.
final class StreamLedger: Sendable {
    private struct State {
        var began = false
        var completedBytes: Int64?
    }

    private let state = Mutex(State())

    /// Bytes of the last attempt that wrote the whole body, or nil when no attempt has.
    var completedBytes: Int64? { state.withLock { $0.completedBytes } }

    /// An attempt is about to write: refused when the sink cannot restart and an earlier attempt already wrote.
    func begin(restartable: Bool, response: RawResponse) throws {
        try state.withLock { state in
            if state.began && !restartable {
                throw TransportError(.deliveryInterrupted,
                                     "a body was already written for an earlier attempt; it is not written twice",
                                     partialResponse: response)
            }
            state.began = true
            state.completedBytes = nil
        }
    }

    func completed(_ bytes: Int64) {
        state.withLock { $0.completedBytes = bytes }
    }
}

extension ExchangeEventKind {
    /// A download wrote its body to a file (attributes `bytes`, `file`, `mode`).
    public static let download = Self(rawValue: "download")
}
