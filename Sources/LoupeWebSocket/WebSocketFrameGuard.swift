import HTTPTypes
import HummingbirdWSClient
import HummingbirdWSCompression
import NIOCore
import NIOWebSocket
import Synchronization

/// What one connection's frame checks found: the client's first refusal, read by the transport's reader after each
/// frame. The checks sit in the library's extension chain, the one place that sees a frame as the server sent it
/// (masked or not) and a compressed one's inflating fail; an error thrown there is swallowed by the library (it
/// sends 1011 and reads on), so they note the refusal here instead and the reader fails the connection with its
/// code (issue 44, items 11 and 14).
final class WebSocketFrameGuard: Sendable {
    private let refusal = Mutex<WebSocketRefusal?>(nil)

    /// The first refusal noted, if any.
    var current: WebSocketRefusal? { refusal.withLock { $0 } }

    /// Notes `reason` unless one was noted already.
    func refuse(_ reason: WebSocketRefusal) {
        refusal.withLock { $0 = $0 ?? reason }
    }

    /// The extensions a connection runs with: `permessage-deflate` (offered when `compression`) bounded to
    /// `maxBytes` after inflating, and the server-frame check, which always runs (first on what arrives).
    func extensions(compression: Bool, maxBytes: Int) -> [WebSocketExtensionFactory] {
        let deflate = WebSocketExtensionFactory { [self] in
            BoundedDeflateBuilder(base: WebSocketExtensionFactory.perMessageDeflate(maxDecompressedFrameSize: maxBytes).build(),
                                  guard: self, maxBytes: maxBytes)
        }
        let check = WebSocketExtensionFactory.nonNegotiatedExtension { [self] in ServerFrameCheck(guard: self) }
        return (compression ? [deflate] : []) + [check]
    }
}

/// Notes a masked frame from the server (RFC 6455 §5.1: the client must fail the connection), which the library
/// unmasks and accepts. Data frames only: the library handles control frames before any extension sees them.
struct ServerFrameCheck: WebSocketExtension {
    let `guard`: WebSocketFrameGuard
    var name: String { "loupe-server-frame-check" }

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        if frame.maskKey != nil { `guard`.refuse(.maskedFrame) }
        return frame
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        frame
    }

    func shutdown() async {}
}

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

/// One connection's bounded `permessage-deflate` (see ``BoundedDeflateBuilder``).
struct BoundedInflate: WebSocketExtension {
    let base: any WebSocketExtension
    let `guard`: WebSocketFrameGuard
    let maxBytes: Int
    var name: String { base.name }
    var reservedBits: WebSocketFrame.ReservedBits { base.reservedBits }

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        do {
            return try await base.processReceivedFrame(frame, context: context)
        } catch {
            // CompressNIO's "output buffer too small" is the limit reached; anything else is data that is not deflate.
            `guard`.refuse(String(describing: error) == "bufferOverflow" ? .tooLarge(maxBytes)
                : WebSocketRefusal(code: 1002, reason: "a compressed message that does not inflate"))
            return WebSocketFrame(fin: true, opcode: frame.opcode, data: ByteBuffer())
        }
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        try await base.processFrameToSend(frame, context: context)
    }

    func shutdown() async { await base.shutdown() }
}
