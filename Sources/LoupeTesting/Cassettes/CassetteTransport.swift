import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import LoupeFormats

/// The transport a ``Cassette`` gives: answers from the recording, records through `upstream`, or passes through,
/// as the cassette's ``CassetteMode`` says.
///
/// A request no recorded interaction answers, in a mode that does not record, fails with a ``CassetteError`` of
/// code ``CassetteError/Code/noMatch`` that explains the closest recordings. Recording never changes what the
/// client receives: the live response is returned as the server sent it, and only the saved copy is redacted.
/// Requests that fail without a response are not recorded.
public struct CassetteTransport: ClientTransport {
    /// The cassette answering and recording.
    public let cassette: Cassette
    /// The real transport, for requests the cassette records or lets through.
    public let upstream: (any ClientTransport)?

    /// A transport over `cassette`, sending with `upstream` when it must.
    public init(cassette: Cassette, upstream: (any ClientTransport)?) {
        self.cassette = cassette
        self.upstream = upstream
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        if cassette.mode == .passthrough {
            return try await requireUpstream(for: request.method.rawValue).send(request, body: body, context: context)
        }
        // Collected once: compared, sent upstream and saved as the same bytes.
        let data = try await body?.collect()
        let live = cassette.storedRequest(request, body: data, operation: context.operation)
        switch cassette.plan(for: live) {
        case .play(_, let exchange):
            return try played(exchange, context: context)
        case .fail(let error):
            throw error
        case .record:
            let upstream = try requireUpstream(for: "\(live.method) \(TerminalText.line(live.url))")
            let startedAt = cassette.now()
            let response = try await upstream.send(request, body: data.map(RequestBody.data), context: context)
            try cassette.record(cassette.exchange(request, body: data, response: response, operation: context.operation, startedAt: startedAt))
            return response
        }
    }

    /// A recorded interaction's response, as played.
    func played(_ exchange: TraceExchange, context: RequestContext) throws -> RawResponse {
        guard exchange.status != nil else {
            context.attempt?.markRequestSent()
            throw TransportError(.other, "the recording has no response: \(exchange.error ?? "it failed on the wire")")
        }
        context.attempt?.markRequestSent()
        context.attempt?.markFirstByte()
        return cassette.response(for: exchange)
    }

    /// `request` names the request in the error (in stored form: nothing secret).
    func requireUpstream(for request: String) throws(CassetteError) -> any ClientTransport {
        guard let upstream else {
            throw CassetteError(.noUpstream, path: cassette.path, message: """
                cassette \(cassette.path) (mode .\(cassette.mode.rawValue)) must send \(request) but has no upstream \
                transport: pass one to transport(upstream:)
                """)
        }
        return upstream
    }
}
