import HummingbirdWSClient
import HummingbirdWSCompression

/// The library's `permessage-deflate`, negotiated as it is, whose inflating failures are noted as refusals: over
/// the limit (1009) or data that does not inflate (1002), where the library's own error is swallowed and the
/// message vanished with a 1011 (issue 44, item 11).
struct BoundedDeflateBuilder: WebSocketExtensionBuilder {
    static var name: String { "permessage-deflate" }
    let base: any WebSocketExtensionBuilder
    let `guard`: WebSocketFrameGuard
    let maxBytes: Int

    func clientRequestHeader() -> String { base.clientRequestHeader() }

    func serverReponseHeader(to request: WebSocketExtensionHTTPParameters) -> String? { base.serverReponseHeader(to: request) }

    func serverExtension(from request: WebSocketExtensionHTTPParameters) throws -> (any WebSocketExtension)? {
        try base.serverExtension(from: request)
    }

    func clientExtension(from response: WebSocketExtensionHTTPParameters) throws -> (any WebSocketExtension)? {
        try base.clientExtension(from: response).map { BoundedInflate(base: $0, guard: `guard`, maxBytes: maxBytes) }
    }
}
