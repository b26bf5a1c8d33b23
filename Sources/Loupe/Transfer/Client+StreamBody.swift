import Foundation
import HTTPTypes

extension Client {
    /// Sends `request` and writes the response body to `sink` as it arrives: constant memory at any size.
    ///
    /// Like ``execute(_:body:options:)``, any status is returned rather than thrown. The response's `value` is the
    /// number of bytes the sink received and its `body` the first ``ResponseStreaming/keptPrefix`` of them; the
    /// recorder stores that prefix with the true size. A response that did not stream (a status left for retry
    /// policies, a middleware's answer, a transport that is not a ``StreamingClientTransport``) is written to the
    /// sink once it is final. See ``ResponseBodySink`` for what happens when a body breaks part way.
    public func execute(
        _ request: HTTPRequest,
        body: RequestBody? = nil,
        options: RequestOptions = RequestOptions(),
        streamingBodyTo sink: any ResponseBodySink,
        streaming: ResponseStreaming = ResponseStreaming()
    ) async throws -> ClientResponse<Int64> {
        let ledger = StreamLedger()
        let transport = BodyStreamingTransport(base: self.transport, sink: sink, streaming: streaming, ledger: ledger)
        return try await performStreaming(request, body: body, options: options, transport: transport, validate: false) { raw in
            if let bytes = ledger.completedBytes { return bytes }
            try sink.begin(raw.head, httpVersion: raw.httpVersion)
            if !raw.body.isEmpty { try sink.write(raw.body) }
            try sink.finish(byteCount: Int64(raw.body.count))
            return Int64(raw.body.count)
        }
    }

    /// Runs one exchange with `transport` at the bottom of the same middleware, observer and configuration.
    func performStreaming<Value: Sendable>(
        _ request: HTTPRequest, body: RequestBody?, options: RequestOptions, transport: any ClientTransport,
        validate: Bool, decode: (RawResponse) throws -> Value
    ) async throws -> ClientResponse<Value> {
        let streaming = Client(baseURL: baseURL, transport: transport, middlewares: middlewares, observer: observer,
                               configuration: configuration)
        var options = options
        options.timeout = options.timeout ?? configuration.timeout
        var metadata = RequestMetadata.current
        metadata.streamsResponseBody = true
        return try await RequestMetadata.$current.withValue(metadata) {
            try await streaming.perform(request, body: body, options: options, validate: validate, decode: decode)
        }
    }
}
