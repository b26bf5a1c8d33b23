import HummingbirdWSClient
import NIOWebSocket

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
