import Foundation
import Loupe
import LoupeTrace

/// Whether sending a recorded exchange again could change something on the server.
///
/// Only the safe methods GET, HEAD and OPTIONS replay without asking (RFC 9110 §9.2.1). Idempotent is not safe: a
/// replayed PUT or DELETE overwrites or deletes again whatever is there now, which need not be what was there when
/// it was recorded, and an `Idempotency-Key` only makes a server drop a second POST within its own window, which a
/// replay days later is usually outside of. TRACE is left out too: it is rarely enabled and reflects the request.
package enum ReplaySafety {
    /// Methods that replay without asking.
    package static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS"]

    /// Why replaying `exchange` needs the user's confirmation, or `nil` when it is safe to repeat.
    package static func reasonToConfirm(_ exchange: TraceExchange) -> String? {
        // A WebSocket's handshake is a GET, but its replay sends the client's recorded messages again, and a
        // message (a chat line, an order) may do anything: only pings and the close are known to do nothing.
        if let stream = exchange.stream, stream.kind == .webSocket {
            let messages = stream.messages.filter { $0.direction == .sent && !["ping", "pong", "close"].contains($0.type) }
            if !messages.isEmpty || stream.sentCount > stream.messages.filter({ $0.direction == .sent }).count {
                return "a WebSocket replay sends \(Quantity.count(max(messages.count, 1), "recorded client message")) again"
            }
        }
        // A gRPC call is a POST whatever it does: any method may change the server.
        if exchange.stream?.kind == .grpc {
            return "a gRPC call (\(exchange.operation)) may change the server (only GET, HEAD and OPTIONS replay without asking)"
        }
        let method = exchange.method.uppercased()
        guard !safeMethods.contains(method) else { return nil }
        return "\(method) may change the server (only GET, HEAD and OPTIONS replay without asking)"
    }
}
