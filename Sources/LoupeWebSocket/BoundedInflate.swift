import HummingbirdWSClient
import NIOCore
import NIOWebSocket

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
