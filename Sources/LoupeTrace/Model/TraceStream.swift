import Foundation
import Loupe

/// What an exchange that streamed (server-sent events, WebSocket) carried after its head: its messages as kept, and
/// counts of all of them.
///
/// The recorder keeps at most ``NetworkTraceInspector/Configuration/messageCap`` messages a stream: the first half
/// and the last half, with those between counted in ``omittedCount`` (their indexes show the gap).
public struct TraceStream: Sendable, Codable, Hashable {
    public var kind: ExchangeStreamKind
    /// The kept messages, in order; each ``TraceMessage/index`` is its place among all the stream's messages.
    public var messages: [TraceMessage]
    /// Every message the client sent, kept or not.
    public var sentCount: Int
    /// Every message the client received, kept or not.
    public var receivedCount: Int
    /// Messages seen but not kept (past the cap, between the first and the last kept).
    public var omittedCount: Int
    /// Payload bytes of every message, kept or not.
    public var byteCount: Int
    /// The WebSocket close code, when a close frame said one.
    public var closeCode: Int?
    /// The WebSocket close reason, when one was given.
    public var closeReason: String?
    /// Who closed the stream: `client` or `server`; nil while open or when unknown.
    public var closedBy: String?

    public init(kind: ExchangeStreamKind, messages: [TraceMessage] = [], sentCount: Int = 0, receivedCount: Int = 0,
                omittedCount: Int = 0, byteCount: Int = 0, closeCode: Int? = nil, closeReason: String? = nil,
                closedBy: String? = nil) {
        self.kind = kind
        self.messages = messages
        self.sentCount = sentCount
        self.receivedCount = receivedCount
        self.omittedCount = omittedCount
        self.byteCount = byteCount
        self.closeCode = closeCode
        self.closeReason = closeReason
        self.closedBy = closedBy
    }

    /// Every message seen, kept or not.
    public var messageCount: Int { sentCount + receivedCount }

    /// How the stream ended, in the glossary's words: `closed` (the client closed it), `ended` (the server closed
    /// it: an event stream's end, a WebSocket's close frame), `cut` (the connection dropped: an event stream whose
    /// read failed, a WebSocket closed without a close frame, 1006), `open` (no end recorded).
    public var ending: String {
        switch closedBy {
        case "client": "closed"
        case "server":
            // An event stream's drop carries its reason; a server's end carries none.
            closeCode == 1006 || (kind == .eventStream && !(closeReason ?? "").isEmpty) ? "cut" : "ended"
        default: closeCode == 1006 ? "cut" : "open"
        }
    }

    /// The code column for a stream row: `SSE`, a WebSocket's close code (`WS` without one), or a gRPC call's status
    /// by name (`UNAVAILABLE`; `GRPC` while it has none).
    public var code: String {
        switch kind {
        case .eventStream: "SSE"
        case .webSocket: closeCode.map(String.init) ?? "WS"
        case .grpc: closeCode.map(GRPCStatusName.name) ?? "GRPC"
        }
    }

    /// A gRPC call that ended with a status other than `OK`.
    public var isFailedCall: Bool { kind == .grpc && closeCode.map { $0 != 0 } ?? false }

    /// What a list row says of the stream: `↑ 0 ↓ 21 ended`.
    public var listing: String {
        "↑ \(Quantity.count(sentCount)) ↓ \(Quantity.count(receivedCount)) \(ending)"
    }

    /// The stored `exchange.stream` column: everything but the messages (which are rows of `message`).
    package struct Header: Codable, Hashable {
        package var kind: ExchangeStreamKind
        package var sent: Int
        package var received: Int
        var omitted: Int
        var bytes: Int
        var closeCode: Int?
        var closeReason: String?
        var closedBy: String?

        /// The column's text: JSON with sorted keys.
        package var storedText: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }

    package var header: Header {
        Header(kind: kind, sent: sentCount, received: receivedCount, omitted: omittedCount, bytes: byteCount,
               closeCode: closeCode, closeReason: closeReason, closedBy: closedBy)
    }

    package init(_ header: Header, messages: [TraceMessage]) {
        self.init(kind: header.kind, messages: messages, sentCount: header.sent, receivedCount: header.received,
                  omittedCount: header.omitted, byteCount: header.bytes, closeCode: header.closeCode,
                  closeReason: header.closeReason, closedBy: header.closedBy)
    }
}

/// One stream message as stored: redacted like a body (by name in JSON, by value everywhere) and capped.
public struct TraceMessage: Sendable, Codable, Hashable {
    /// Its place among all the stream's messages, from 0 (omitted messages leave a gap).
    public var index: Int
    public var direction: MessageDirection
    public var at: Date
    /// The event type (server-sent events) or opcode word (WebSocket: `text`, `binary`, `ping`, `pong`, `close`).
    public var type: String
    /// The whole payload's size in bytes.
    public var size: Int
    /// The stored payload: at most the recorder's message payload cap.
    public var payload: Data
    /// Whether ``payload`` is a prefix of a larger payload.
    public var isTruncated: Bool
    /// A server-sent event's id.
    public var eventID: String?

    public init(index: Int, direction: MessageDirection, at: Date, type: String, size: Int, payload: Data,
                isTruncated: Bool = false, eventID: String? = nil) {
        self.index = index
        self.direction = direction
        self.at = at
        self.type = type
        self.size = size
        self.payload = payload
        self.isTruncated = isTruncated
        self.eventID = eventID
    }
}
