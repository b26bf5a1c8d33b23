import Foundation
import Loupe
import LoupeProtobuf
import LoupeTrace

/// The Messages tab: a stream's messages (server-sent events, WebSocket messages), one row each with its time offset
/// from the exchange's start, direction, type, size and the start of its payload; above them the stream's counts and
/// how it closed. Rows are deferred lines: a stream of any length costs one small value a row until a row is drawn.
extension DetailTabs {
    var messageLines: [StyledLine] {
        guard let stream = exchange.stream else { return [StyledLine("Not a stream: no messages.", style: .dim)] }
        var summary: [StyledLine.Span] = [
            .init(stream.kind == .webSocket ? "WebSocket" : stream.kind == .grpc ? "gRPC" : "Server-sent events", .label),
            .init("  ↑ \(Quantity.count(stream.sentCount))  ↓ \(Quantity.count(stream.receivedCount))", .normal),
            .init("  " + Quantity.bytes(stream.byteCount), .dim),
        ]
        if stream.omittedCount > 0 {
            summary.append(.init("  \(Quantity.count(stream.omittedCount)) not kept (past the cap, between the first and the last)", .dim))
        }
        if stream.kind == .grpc, let code = stream.closeCode {
            let reason = stream.closeReason.flatMap { $0.isEmpty ? nil : " " + $0 } ?? ""
            summary.append(.init("  status \(GRPCStatusName.name(code))\(reason)", stream.isFailedCall ? .error : .dim))
        } else if let by = stream.closedBy {
            let code = stream.closeCode.map { " \($0)" } ?? ""
            let reason = stream.closeReason.flatMap { $0.isEmpty ? nil : " " + $0 } ?? ""
            summary.append(.init("  closed by the \(by)\(code)\(reason)", .dim))
        }
        var lines = Self.safe([StyledLine(summary)])
        guard !stream.messages.isEmpty else { return lines + [StyledLine("No messages.", style: .dim)] }
        let source = MessageRows(stream: stream, start: exchange.startedAt, decoding: messageDecoding)
        lines.reserveCapacity(stream.messages.count + 1)
        for position in stream.messages.indices { lines.append(StyledLine(deferred: source, position, 0)) }
        return lines
    }
}

extension DetailTabs {
    /// The descriptor set and recorded method that name a gRPC call's messages' types, when both are known.
    var messageDecoding: MessageDecoding? {
        guard exchange.stream?.kind == .grpc, let messageTypes, messageTypes.method(exchange.operation) != nil else {
            return nil
        }
        return MessageDecoding(set: messageTypes, method: exchange.operation)
    }
}

/// A gRPC call's messages read by their types (`--descriptor-set`): requests as the method's input type, responses
/// as its output type.
struct MessageDecoding: Sendable {
    let set: ProtobufDescriptorSet
    let method: String

    /// The message in protobuf's JSON mapping, or nil when its bytes are not its type (or were cut when recorded).
    func json(_ message: TraceMessage) -> ProtobufJSONValue? {
        guard !message.isTruncated else { return nil }
        return ProtobufJSON.decode(message.payload, method: method, request: message.direction == .sent, in: set)
    }
}

/// Builds a Messages row when it is drawn (or searched, or printed).
final class MessageRows: DeferredLineSource {
    let stream: TraceStream
    let start: Date
    let decoding: MessageDecoding?
    /// Payload characters shown on a row.
    static let preview = 60

    init(stream: TraceStream, start: Date, decoding: MessageDecoding? = nil) {
        self.stream = stream
        self.start = start
        self.decoding = decoding
    }

    func spans(_ position: Int, _ unused: Int) -> [StyledLine.Span] {
        let message = stream.messages[position]
        let seconds = message.at.timeIntervalSince(start)
        let offset = (seconds.isFinite && seconds >= 0 ? "+" : "") + Quantity.duration(seconds)
        let arrow = message.direction == .sent ? "↑" : "↓"
        // A gRPC message is protobuf: shown by field name as JSON when its type is known, else as its fields
        // (`1: "hello" 2: 42`), as `protoc --decode_raw` reads them.
        var text = stream.kind == .grpc && !message.isTruncated
            ? decoding?.json(message)?.text()
                ?? ProtobufWireDecoder.decode(message.payload).map(ProtobufText.singleLine) ?? Self.hex(message.payload)
            : String(decoding: message.payload.prefix(Self.preview * 4), as: UTF8.self)
        text = text.replacingOccurrences(of: "\n", with: "⏎")
        if text.count > Self.preview { text = String(text.prefix(Self.preview)) + "…" } else if message.isTruncated { text += "…" }
        let number = "#\(message.index)"
        return [
            .init(String(repeating: " ", count: max(0, 7 - number.count)) + number + "  ", .dim),
            .init(String(repeating: " ", count: max(0, 10 - offset.count)) + offset + "  ", .dim),
            .init(arrow + " ", message.direction == .sent ? .label : .normal),
            .init(TerminalText.line(message.type).padding(toLength: 8, withPad: " ", startingAt: 0) + " ", .label),
            .init(Quantity.bytes(message.size).padding(toLength: 9, withPad: " ", startingAt: 0) + " ", .dim),
            .init(TerminalText.line(text)),
        ]
    }

    /// Bytes that are not a protobuf message, in hex (as many as a row shows).
    static func hex(_ payload: Data) -> String {
        payload.prefix(preview / 2).map { String(format: "%02x", $0) }.joined()
    }

    func widthBound(_ position: Int, _ unused: Int) -> Int {
        // The columns above, and the preview; each character may take 2 columns (made visible or wide).
        44 + 2 * (Self.preview + 1) + 2 * min(64, stream.messages[position].type.utf8.count)
    }
}
