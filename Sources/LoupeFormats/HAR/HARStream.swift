import Foundation
import Loupe
import LoupeTrace

/// One WebSocket message as Chrome DevTools writes it in an entry's `_webSocketMessages` (and Firefox and HAR
/// viewers read): `type` `send` or `receive`, `time` in seconds since 1970, the frame's `opcode` (1 text, 2 binary,
/// 8 close, 9 ping, 10 pong) and `data` (text, or base64 for binary frames, as Chrome writes them).
public struct HARWebSocketMessage: Sendable, Hashable, Codable {
    public var type: String
    public var time: Double
    public var opcode: Int
    public var data: String

    public init(type: String, time: Double, opcode: Int, data: String) {
        self.type = type
        self.time = time
        self.opcode = opcode
        self.data = data
    }

    /// The opcode of a recorded message type.
    static func opcode(of type: String) -> Int {
        switch type {
        case "binary": 2
        case "close": 8
        case "ping": 9
        case "pong": 10
        default: 1
        }
    }

    /// The recorded type of an opcode.
    static func type(of opcode: Int) -> String {
        switch opcode {
        case 2: "binary"
        case 8: "close"
        case 9: "ping"
        case 10: "pong"
        default: "text"
        }
    }

    /// A recorded message as Chrome writes it: text as text, any other payload as base64.
    init(_ message: TraceMessage) {
        let text = HARWebSocketMessage.opcode(of: message.type) == 1 ? String(data: message.payload, encoding: .utf8) : nil
        self.init(type: message.direction == .sent ? "send" : "receive", time: HAREntryWriter.time(message.at),
                  opcode: Self.opcode(of: message.type), data: text ?? message.payload.base64EncodedString())
    }
}

/// A stream in `_loupe`: its counts and close, and every kept message (server-sent events have no field in HAR
/// that another tool reads; WebSocket messages are also in Chrome's `_webSocketMessages`).
public struct HARLoupeStream: Sendable, Hashable, Codable {
    public var kind: String
    public var sent: Int
    public var received: Int
    public var omitted: Int
    public var bytes: Int
    public var closeCode: Int?
    public var closeReason: String?
    public var closedBy: String?
    public var messages: [HARLoupeMessage]

    init(_ stream: TraceStream) {
        kind = stream.kind.rawValue
        sent = stream.sentCount
        received = stream.receivedCount
        omitted = stream.omittedCount
        bytes = stream.byteCount
        closeCode = stream.closeCode
        closeReason = stream.closeReason
        closedBy = stream.closedBy
        messages = stream.messages.map(HARLoupeMessage.init)
    }

    var stream: TraceStream? {
        guard let kind = ExchangeStreamKind(rawValue: kind) else { return nil }
        return TraceStream(kind: kind, messages: messages.map(\.message), sentCount: max(0, sent), receivedCount: max(0, received),
                           omittedCount: max(0, omitted), byteCount: max(0, bytes), closeCode: closeCode,
                           closeReason: closeReason, closedBy: closedBy)
    }
}

/// One message in `_loupe.stream.messages`: the payload as `text` when UTF-8, else `base64`.
public struct HARLoupeMessage: Sendable, Hashable, Codable {
    public var index: Int
    public var direction: String
    public var at: Date
    public var type: String
    public var size: Int
    public var truncated: Bool
    public var eventID: String?
    public var text: String?
    public var base64: String?

    init(_ message: TraceMessage) {
        index = message.index
        direction = message.direction.rawValue
        at = message.at
        type = message.type
        size = message.size
        truncated = message.isTruncated
        eventID = message.eventID
        text = String(data: message.payload, encoding: .utf8)
        base64 = text == nil ? message.payload.base64EncodedString() : nil
    }

    var message: TraceMessage {
        let payload = text.map { Data($0.utf8) } ?? base64.flatMap { Data(base64Encoded: $0) } ?? Data()
        return TraceMessage(index: max(0, index), direction: MessageDirection(rawValue: direction) ?? .received, at: at,
                            type: type, size: max(size, payload.count), payload: payload, isTruncated: truncated, eventID: eventID)
    }
}

extension HAREntryWriter {
    /// `_loupe.stream`, in the encoder's sorted key order.
    /// `json` gives a message's JSON text (a gRPC message read by its type), written as its `json` member.
    static func writeStream(_ stream: TraceStream, to out: HARBytes, json: ((TraceMessage) -> String?)? = nil) throws {
        let object = out.open(openBrace)
        out.member("bytes", stream.byteCount)
        out.member("closeCode", stream.closeCode)
        out.member("closeReason", stream.closeReason)
        out.member("closedBy", stream.closedBy)
        out.member("kind", stream.kind.rawValue)
        out.key("messages")
        try writeObjects(stream.messages, to: out) { message in
            let item = HARLoupeMessage(message)
            try out.member("at", time(message.at))
            out.member("base64", item.base64)
            out.member("direction", item.direction)
            out.member("eventID", item.eventID)
            out.member("index", item.index)
            out.member("json", json: json?(message))
            out.member("size", item.size)
            out.member("text", item.text)
            out.member("truncated", item.truncated)
            out.member("type", item.type)
        }
        out.member("omitted", stream.omittedCount)
        out.member("received", stream.receivedCount)
        out.member("sent", stream.sentCount)
        out.close(closeBrace, object)
    }

    /// Chrome's `_webSocketMessages`, in the encoder's sorted key order.
    static func writeWebSocketMessages(_ stream: TraceStream, to out: HARBytes) throws {
        try writeObjects(stream.messages, to: out) { message in
            let item = HARWebSocketMessage(message)
            out.member("data", item.data)
            out.member("opcode", item.opcode)
            try out.member("time", item.time)
            out.member("type", item.type)
        }
    }
}

extension HARForeignEntry {
    /// A stream from an entry written by another tool: Chrome's `_webSocketMessages`, one message each.
    static func stream(_ messages: [HARWebSocketMessage]) -> TraceStream {
        var sent = 0
        var bytes = 0
        let kept = messages.enumerated().map { index, message in
            let binary = message.opcode != 1
            let payload = binary ? (Data(base64Encoded: message.data) ?? Data(message.data.utf8)) : Data(message.data.utf8)
            if message.type == "send" { sent += 1 }
            bytes += payload.count
            return TraceMessage(
                index: index, direction: message.type == "send" ? .sent : .received,
                at: Date(timeIntervalSince1970: message.time.isFinite ? message.time : 0),
                type: HARWebSocketMessage.type(of: message.opcode), size: payload.count, payload: payload)
        }
        return TraceStream(kind: .webSocket, messages: kept, sentCount: sent, receivedCount: messages.count - sent, byteCount: bytes)
    }
}
