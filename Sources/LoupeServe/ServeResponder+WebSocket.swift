import Foundation
import HTTPTypes
import HummingbirdWebSocket
import Loupe
import LoupeTrace
import NIOCore
import NIOWebSocket
import Synchronization

/// WebSocket conversations served back: a handshake that matches a recorded conversation is accepted and the
/// conversation played (``ServeWebSocket``); any other is relayed to `--passthrough` when there is one, else
/// refused as a miss.
extension ServeResponder {
    /// What the server does with a WebSocket handshake (`Upgrade: websocket`).
    package func upgrade(_ request: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let started = now()
        let target = request.path ?? "/"
        let shownTarget = ServeMatching.shown(request.method.rawValue) + " " + TerminalText.line(target.prefix(200))
        let headers = request.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) }
        let asked = options.redaction.redact(exchange: TraceExchange(
            id: UUID(), operation: "", method: request.method.rawValue, url: "http://" + (request.authority ?? "127.0.0.1") + target,
            startedAt: started, outcome: .success, requestHeaders: headers))
        var live = ServeRequest(asked)
        live.webSocket = true
        // Only a recorded conversation can match (the book files them apart). The server answers a handshake it
        // does not upgrade 400 on its own, so a miss is said and recorded here.
        let index: Int
        switch book.withLock({ $0.take(live) }) {
        case .serve(let found):
            index = found
        case .miss(let miss):
            if let upstream = options.passthrough {
                return relayUpgrade(asked, live: live, request: request, to: upstream, shownTarget: shownTarget)
            }
            let body = Data(miss.message.utf8)
            record(asked, answer: ServeAnswer(status: 400, headers: [], body: body), event: ["miss": miss.short], message: "miss: " + miss.short)
            log("\(shownTarget) → 400 WebSocket miss: \(miss.short)")
            return .dontUpgrade
        }
        guard let recorded = try? library.exchange(at: index), let stream = recorded.stream, stream.kind == .webSocket,
              let answer = ServeAnswer(recorded) else {
            log("\(shownTarget) → 400 recording #\(index + 1) could not be read")
            return .dontUpgrade
        }
        let conversation = ServeWebSocket(stream, start: answer.streamStart, pace: options.pace)
        var fields = HTTPFields()
        if request.headerFields[.secWebSocketProtocol] != nil,
           let chosen = recorded.responseHeaders.first(where: { $0.name.caseInsensitiveCompare("Sec-WebSocket-Protocol") == .orderedSame }) {
            fields[.secWebSocketProtocol] = chosen.value
        }
        let sent = conversation.steps.count { if case .send = $0 { true } else { false } }
        record(asked, answer: ServeAnswer(status: 101, headers: [], body: Data()), event: ["recording": "#\(index + 1)"],
               message: "served recording #\(index + 1) (WebSocket, \(sent) server messages)")
        log("\(shownTarget) → 101 #\(index + 1) (WebSocket: \(Quantity.count(sent, "server message")))")
        return .upgrade(fields) { inbound, outbound, _ in
            try await Self.play(conversation, inbound: inbound, outbound: outbound)
        }
    }

    /// Walks the conversation's steps on a live connection; returns when the client goes or the recording closed.
    static func play(_ conversation: ServeWebSocket, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        for step in conversation.steps {
            switch step {
            case .awaitClient:
                guard try await messages.next() != nil else { return }
            case .send(let text, let payload, let wait):
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                if text {
                    try await outbound.write(.text(String(decoding: payload, as: UTF8.self)))
                } else {
                    try await outbound.write(.binary(ByteBuffer(bytes: payload)))
                }
            case .close(let code, let reason, let wait):
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                try await outbound.close(WebSocketErrorCode(codeNumber: ServeWebSocket.sendable(code)), reason: reason)
                return
            case .awaitClose:
                while try await messages.next() != nil {}
            }
        }
    }
}
