import Loupe

/// Why the client failed a WebSocket connection: its close code (RFC 6455 §7.4.1) and a reason a person reads.
///
/// The client's decision, recorded and printed as the client's (`closedBy: client`), never as the server's close:
/// a message over the limit (1009), text that is not UTF-8 (1007), a frame the protocol forbids from a server or a
/// close code that is never valid on the wire (1002).
struct WebSocketRefusal: Error, Equatable, CustomStringConvertible {
    let code: Int
    let reason: String

    var description: String { "\(code) \(reason)" }

    /// A message larger than `limit` bytes (after inflating, when compressed).
    static func tooLarge(_ limit: Int) -> Self {
        Self(code: 1009, reason: "a message over \(Quantity.bytes(limit))")
    }

    /// A text message that is not UTF-8.
    static let invalidText = Self(code: 1007, reason: "a text message that is not UTF-8")

    /// Frames out of order.
    static func outOfOrder(_ what: String) -> Self { Self(code: 1002, reason: what) }

    /// A frame the server masked (RFC 6455 §5.1: a client must fail the connection).
    static let maskedFrame = Self(code: 1002, reason: "a masked frame from the server")

    /// A close code that RFC 6455 §7.4 says is never sent (1005, 1006, 1015), or one outside every range it
    /// allows (below 1000, unassigned 1xxx and 2xxx, 5000 and up).
    static func invalidCloseCode(_ code: Int) -> Self {
        Self(code: 1002, reason: "the server sent close code \(code), which is never valid on the wire")
    }

    /// Whether a server may send `code` in a close frame: 1000–1003, 1007–1011 and 3000–4999. (1012–1014 are
    /// registered since, but the library Loupe runs on answers them with 1002 too, and what is recorded is what
    /// went on the wire.)
    static func isValidOnTheWire(_ code: Int) -> Bool {
        (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
    }
}
