import Foundation

/// What kind of stream an exchange carries after its response head: none for an ordinary request.
public enum ExchangeStreamKind: String, Sendable, Codable, CaseIterable {
    /// A `text/event-stream` response read event by event (``Client/events(_:options:stream:)``).
    case eventStream = "sse"
    /// A WebSocket connection (``Client/webSocket(_:)``).
    case webSocket = "websocket"
    /// A gRPC call recorded by `LoupeGRPC`: its request and response messages, and its status as the close.
    case grpc
}

/// Which way a stream message went.
public enum MessageDirection: String, Sendable, Codable, CaseIterable {
    /// The client sent it.
    case sent
    /// The server sent it.
    case received
}

/// One message of a stream (a server-sent event, a WebSocket frame or reassembled message), as the client saw it.
///
/// Reported to ``ClientObserver/messageRecorded(_:)`` on the stream's path, so the payload is handed over as it is
/// (not copied, not redacted): the recorder caps and redacts it off that path.
public struct ExchangeMessage: Sendable {
    public var exchangeID: UUID
    public var direction: MessageDirection
    public var at: Date
    /// The event's type for server-sent events (`message` when the stream names none); for WebSocket the opcode's
    /// word: `text`, `binary`, `ping`, `pong` or `close`.
    public var type: String
    /// The payload: an event's data (its `data:` lines joined), a WebSocket message's bytes.
    public var payload: Data
    /// The event's id (`id:` field) for server-sent events; nil otherwise.
    public var eventID: String?
    /// The kind of stream it belongs to (the recorder starts keeping messages for an exchange at its first one).
    public var stream: ExchangeStreamKind

    public init(exchangeID: UUID, direction: MessageDirection, at: Date, type: String, payload: Data, eventID: String? = nil,
                stream: ExchangeStreamKind = .eventStream) {
        self.stream = stream
        self.exchangeID = exchangeID
        self.direction = direction
        self.at = at
        self.type = type
        self.payload = payload
        self.eventID = eventID
    }
}

extension ExchangeEventKind {
    /// A stream's connection was established (attributes `attempt`; for WebSocket `extensions`).
    public static let streamOpen = Self(rawValue: "stream-open")
    /// A server-sent event stream ended or dropped and the client connects again (attributes `reason`, `delayMs`,
    /// `lastEventID`).
    public static let streamReconnect = Self(rawValue: "stream-reconnect")
    /// A server-sent event larger than the parser's cap was dropped whole, never delivered cut (attributes
    /// `dropped`: the stream's count so far, `maxBytes`).
    public static let streamEventDropped = Self(rawValue: "stream-drop")
    /// A stream closed (attributes `by`: `client` or `server`; WebSocket `code` and `reason`).
    public static let streamClose = Self(rawValue: "stream-close")
}

extension RequestContext {
    /// Reports one message of this exchange's stream to the client's observer: what a transport that streams
    /// (server-sent events, WebSocket) calls for each message. Returns at once; the observer must not block.
    public func recordMessage(_ direction: MessageDirection, type: String, payload: Data, eventID: String? = nil,
                              stream: ExchangeStreamKind = .eventStream) {
        tracker.observer.messageRecorded(ExchangeMessage(
            exchangeID: exchangeID, direction: direction, at: tracker.now(), type: type, payload: payload, eventID: eventID,
            stream: stream))
    }

    /// This exchange's clock for wall-clock times (the client's `now`), so stream events line up with attempts.
    public func now() -> Date { tracker.now() }
}
