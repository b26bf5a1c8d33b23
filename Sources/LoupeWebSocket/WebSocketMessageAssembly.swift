import Foundation
import Loupe
import NIOCore
import HummingbirdWSClient

/// Data frames in, whole messages out, or the client's refusal: a value type the transport's reader feeds.
///
/// The library's own `messages(maxSize:)` refuses the same things, but its errors are internal to it, so Loupe could
/// not tell its own refusal from a server's close: a message over the limit read as "the server closed the
/// WebSocket: 1006" (issue 44, item 12). Here each refusal carries its close code and a reason a person can read:
/// 1009 for a message over ``maxBytes``, 1007 for text that is not UTF-8, 1002 for frames out of order.
struct WebSocketMessageAssembly {
    /// What a frame completed.
    enum Action: Equatable {
        /// Nothing yet: a fragment of a message not finished.
        case none
        /// A whole message.
        case message(Loupe.WebSocketMessage)
        /// The connection must be failed with this refusal.
        case refuse(WebSocketRefusal)
    }

    let maxBytes: Int
    private var pending: ByteBuffer?
    private var isText = false

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    mutating func add(_ frame: WebSocketDataFrame) -> Action {
        var frame = frame
        switch frame.opcode {
        case .text, .binary:
            guard pending == nil else { return .refuse(.outOfOrder("a new message began before the last one ended")) }
            isText = frame.opcode == .text
            guard frame.data.readableBytes <= maxBytes else { return .refuse(.tooLarge(maxBytes)) }
            if frame.fin { return finish(frame.data) }
            pending = frame.data
            return .none
        case .continuation:
            guard var buffer = pending else { return .refuse(.outOfOrder("a continuation frame with no message to continue")) }
            guard buffer.readableBytes + frame.data.readableBytes <= maxBytes else {
                pending = nil
                return .refuse(.tooLarge(maxBytes))
            }
            pending = nil  // one owner while it grows
            buffer.writeBuffer(&frame.data)
            guard frame.fin else {
                pending = buffer
                return .none
            }
            return finish(buffer)
        }
    }

    private mutating func finish(_ buffer: ByteBuffer) -> Action {
        pending = nil
        guard isText else { return .message(Loupe.WebSocketMessage.binary(Data(buffer.readableBytesView))) }
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            return .refuse(.invalidText)
        }
        return .message(Loupe.WebSocketMessage.text(text))
    }
}
