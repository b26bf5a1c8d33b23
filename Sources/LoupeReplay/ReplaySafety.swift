import Foundation
import Loupe
import LoupeTrace

/// Whether sending a recorded exchange again could repeat a side effect (a second order, a second payment).
///
/// GET, HEAD, OPTIONS, TRACE, PUT and DELETE are idempotent by definition (RFC 9110 §9.2.2): sending them twice
/// leaves the server as sending them once. Any other method (POST, PATCH, CONNECT, custom ones) is safe to repeat
/// only when the request carries an `Idempotency-Key` the replay will send again, so the server can recognise it.
/// A redacted key does not count: replay drops redacted headers.
package enum ReplaySafety {
    /// Methods whose repetition has no further effect.
    package static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

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
        let method = exchange.method.uppercased()
        guard !idempotentMethods.contains(method) else { return nil }
        let key = exchange.requestHeaders.first { $0.name.caseInsensitiveCompare("Idempotency-Key") == .orderedSame }
        if let key, !key.value.isEmpty, key.value != RedactionPolicy.marker { return nil }
        return "\(method) is not idempotent and the request has no Idempotency-Key"
    }
}
