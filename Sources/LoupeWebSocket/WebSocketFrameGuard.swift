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
