import Foundation
import HTTPTypes
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import Loupe
import LoupeTrace
import NIOCore
import NIOWebSocket
import Synchronization

/// A WebSocket handshake that matches no recording, with `--passthrough`: the conversation is relayed to the
/// passthrough server (ws, or wss for https) both ways, its messages recorded, and the recording served from then
/// on, as an HTTP miss is.
extension ServeResponder {
    /// The largest message relayed either way; a larger one ends the conversation.
    static let maximumRelayedMessage = 1 << 20
    /// Most client messages waiting for the upstream; past them the conversation is cut short rather than held.
    static let relayBacklog = 1_024
    typealias RelayedMessage = HummingbirdWebSocket.WebSocketMessage

    /// The upgrade that relays the conversation to `upstream`; the handshake is accepted at once and the upstream
    /// connected behind it (a failed connection is a close with 1011 and is recorded as such).
    func relayUpgrade(_ asked: TraceExchange, live: ServeRequest, request: HTTPRequest, to upstream: URL, shownTarget: String)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        var url = Self.join(upstream, live.pathAndQuery)
        if url.lowercased().hasPrefix("https:") { url = "wss" + url.dropFirst(5) } else if url.lowercased().hasPrefix("http:") { url = "ws" + url.dropFirst(4) }
        var headers = HTTPFields()
        let owned: Set<String> = ["host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
                                  "sec-websocket-accept", "content-length", "transfer-encoding"]
        for field in request.headerFields where !owned.contains(field.name.canonicalName) { headers.append(field) }
        let target = url
        let forwarded = headers
        return .upgrade(HTTPFields()) { inbound, outbound, _ in
            await self.relay(asked, inbound: inbound, outbound: outbound, to: target, headers: forwarded, upstream: upstream, shownTarget: shownTarget)
        }
    }

    /// Relays the client's messages to `url` and its answers back until either side closes, then records the
    /// conversation and keeps it as a recording.
    private func relay(_ asked: TraceExchange, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, to url: String,
                       headers: HTTPFields, upstream: URL, shownTarget: String) async {
        let messages = Mutex<[TraceMessage]>([])
        let clock = now
        @Sendable func note(_ message: RelayedMessage, _ direction: MessageDirection) {
            let (type, payload): (String, Data) = switch message {
            case .text(let text): ("text", Data(text.utf8))
            case .binary(let buffer): ("binary", Data(buffer.readableBytesView))
            }
            messages.withLock { list in
                list.append(TraceMessage(index: list.count, direction: direction, at: clock(), type: type, size: payload.count, payload: payload))
            }
        }
        @Sendable func frame(_ message: RelayedMessage) -> WebSocketOutboundWriter.OutboundFrame {
            switch message {
            case .text(let text): .text(text)
            case .binary(let buffer): .binary(buffer)
            }
        }
        // The client's messages reach the upstream's handler through a bounded stream: the server's inbound stream
        // belongs to this task and cannot move into the client's.
        let (upward, upwardSink) = AsyncStream.makeStream(of: RelayedMessage.self, bufferingPolicy: .bufferingOldest(Self.relayBacklog))
        let client = WebSocketClient(
            url: url, configuration: WebSocketClientConfiguration(maxFrameSize: Self.maximumRelayedMessage, additionalHeaders: headers,
                                                                  closeTimeout: .seconds(2)),
            logger: Logger(label: "loupe.serve.relay", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { upstreamInbound, upstreamOutbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client's messages go up; when it closes, the upstream is closed too.
                group.addTask {
                    for await message in upward { try await upstreamOutbound.write(frame(message)) }
                    try? await upstreamOutbound.close(.normalClosure, reason: nil)
                }
                // The upstream's answers come down; when it closes, so does the client.
                for try await message in upstreamInbound.messages(maxSize: Self.maximumRelayedMessage) {
                    note(message, MessageDirection.received)
                    try await outbound.write(frame(message))
                }
                group.cancelAll()
            }
            try? await outbound.close(.normalClosure, reason: nil)
        }
        let upstreamRun = Task { try await client.run() }
        // An upstream that cannot be reached closes the client's side at once (1011) rather than leaving it waiting.
        let watcher = Task {
            if case .failure = await upstreamRun.result { try? await outbound.close(.unexpectedServerError, reason: "passthrough failed") }
        }
        do {
            for try await message in inbound.messages(maxSize: Self.maximumRelayedMessage) {
                guard case .enqueued = upwardSink.yield(message) else { break }
                note(message, MessageDirection.sent)
            }
        } catch {
            // The client went away or sent too much: the upstream is closed below all the same.
        }
        upwardSink.finish()
        await watcher.value
        var exchange = asked
        exchange.url = url
        exchange.endedAt = now()
        let closeFrame: WebSocketCloseFrame?
        do {
            closeFrame = try await upstreamRun.value
        } catch {
            let reason = TerminalText.line(String(describing: error))
            try? await outbound.close(.unexpectedServerError, reason: "passthrough failed")
            record(asked, answer: ServeAnswer(status: 502, headers: [], body: Data("passthrough to \(url) failed: \(reason)\n".utf8)),
                   event: ["miss": "passthrough failed"], message: "WebSocket passthrough failed: \(reason)")
            log("\(shownTarget) → 101 WebSocket passthrough failed: \(reason)")
            return
        }
        let kept = messages.withLock { $0 }
        let code = closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) } ?? 1000
        exchange.status = 101
        exchange.endedAt = now()
        exchange.stream = TraceStream(
            kind: .webSocket, messages: kept, sentCount: kept.count { $0.direction == .sent },
            receivedCount: kept.count { $0.direction == .received }, byteCount: kept.reduce(0) { $0 + $1.size },
            closeCode: code, closeReason: closeFrame?.reason, closedBy: "server")
        exchange = options.redaction.redact(exchange: exchange)
        let index = book.withLock { book in
            let index = book.append(ServeRequest(exchange))
            library.append(exchange)
            return index
        }
        record(asked, answer: ServeAnswer(status: 101, headers: [], body: Data()), stream: exchange.stream, event: ["recording": "#\(index + 1)", "passthrough": upstream.absoluteString],
               message: "WebSocket passed through to \(upstream.absoluteString), recorded as #\(index + 1)")
        log("\(shownTarget) → 101 WebSocket passthrough (\(Quantity.count(kept.count, "message"))), recorded as #\(index + 1)")
    }
}
