import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// The WebSocket transport a ``Cassette`` gives (``Cassette/webSocketTransport(upstream:)``): plays a recorded
/// conversation, records one through `upstream`, or passes through, as the cassette's ``CassetteMode`` says.
///
/// ```swift
/// let socket = try await client.webSocket(Chat(), transport: cassette.webSocketTransport(upstream: NIOWebSocketTransport()))
/// ```
///
/// Recorded, the conversation is one interaction: the handshake, then every message both ways in order (text,
/// binary, ping, pong, the client's close) and how it closed (code, reason, who), stored as the flight recorder
/// stores a WebSocket (in a HAR cassette, Chrome's `_webSocketMessages` and `_loupe`). Played, the handshake is
/// matched as any request is; then the recording is followed in order: the server's messages are delivered, and
/// each message the client sends must be the one recorded next (type and payload, compared in stored form:
/// redacted, secrets as placeholders). A message that differs, one more than recorded, or a close where the
/// recording goes on ends ``WebSocket/messages`` with a ``CassetteError`` (``CassetteError/Code/noMatch``) saying
/// what was expected, which ``Cassette/assertAllPlayed()`` throws too. A recording the recorder cut (messages
/// dropped past its cap, a payload kept in part) is refused with ``CassetteError/Code/unreadable``.
public struct CassetteWebSocketTransport: WebSocketTransport {
    /// The cassette answering and recording.
    public let cassette: Cassette
    /// The real transport, for connections the cassette records or lets through.
    public let upstream: (any WebSocketTransport)?

    /// A transport over `cassette`, connecting with `upstream` when it must.
    public init(cassette: Cassette, upstream: (any WebSocketTransport)?) {
        self.cassette = cassette
        self.upstream = upstream
    }

    public func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse {
        if cassette.mode == .passthrough {
            return try await requireUpstream(for: request).connect(request, context: context, options: options, link: link)
        }
        let live = cassette.storedRequest(request, body: nil, operation: context.operation)
        switch cassette.plan(for: live) {
        case .play(let index, let exchange):
            guard let stream = exchange.stream, stream.kind == .webSocket else {
                throw CassetteError(.noMatch, path: cassette.path, message: """
                    interaction #\(index + 1) of \(cassette.path) answers \(CassetteMatcher.shown(live.method)) \
                    \(TerminalText.line(live.pathAndQuery)) but is not a WebSocket conversation
                    """)
            }
            return await play(exchange, stream: stream, number: index + 1, context: context, link: link)
        case .fail(let error):
            throw error
        case .record:
            return try await record(request, context: context, options: options, link: link)
        }
    }

    // MARK: Recording

    private func record(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse {
        let upstream = try requireUpstream(for: request)
        let cassette = cassette
        let recording = Mutex(cassette.exchange(
            request, body: nil, response: RawResponse(head: HTTPResponse(status: .switchingProtocols)),
            operation: context.operation, startedAt: cassette.now()))
        recording.withLock { exchange in
            exchange.responseBody = nil
            exchange.stream = TraceStream(kind: .webSocket)
        }
        let opened = Mutex(false)
        link.setTap { tapped in
            let at = cassette.now()
            recording.withLock { exchange in
                switch tapped {
                case .opened(let response):
                    opened.withLock { $0 = true }
                    if let response {
                        exchange.status = response.status.code
                        exchange.responseHeaders = Cassette.headers(response.headerFields)
                    }
                    exchange.events.append(TraceEvent(kind: .streamOpen, at: at, message: "WebSocket opened"))
                case .message(let direction, let type, let payload):
                    var stream = exchange.stream ?? TraceStream(kind: .webSocket)
                    if stream.messages.count < Cassette.messageCap {
                        stream.messages.append(TraceMessage(index: stream.messageCount, direction: direction, at: at, type: type,
                                                            size: payload.count, payload: payload))
                    } else {
                        stream.omittedCount += 1
                    }
                    if direction == .sent { stream.sentCount += 1 } else { stream.receivedCount += 1 }
                    stream.byteCount += payload.count
                    exchange.stream = stream
                case .closed(let close):
                    exchange.stream?.closeCode = close.code
                    exchange.stream?.closeReason = close.reason.isEmpty ? nil : close.reason
                    exchange.stream?.closedBy = close.byClient ? "client" : "server"
                    exchange.endedAt = at
                    exchange.events.append(TraceEvent(
                        kind: .streamClose, at: at, message: "WebSocket closed by the \(close.byClient ? "client" : "server"): \(close.code)",
                        attributes: ["by": close.byClient ? "client" : "server", "code": String(close.code), "reason": close.reason]))
                }
            }
        }
        cassette.streams.withLock { $0.open += 1 }
        defer { cassette.closeConnection(context.exchangeID) }
        // Saved once the conversation is over (and before `exchangeEnded`/`streamsEnded` return); a handshake that
        // failed is not recorded, as a request that failed without a response is not.
        func save() {
            guard opened.withLock({ $0 }) else { return }
            do {
                try cassette.record(recording.withLock { $0 })
            } catch {
                cassette.streams.withLock { $0.failures.append(error) }
            }
        }
        do {
            let response = try await upstream.connect(request, context: context, options: options, link: link)
            save()
            return response
        } catch {
            save()
            throw error
        }
    }

    // MARK: Playing

    /// Follows the recorded conversation: the server's messages delivered, the client's matched in order.
    private func play(_ exchange: TraceExchange, stream: TraceStream, number: Int, context: RequestContext, link: WebSocketLink) async
        -> RawResponse {
        cassette.streams.withLock { $0.open += 1 }
        defer { cassette.closeConnection(context.exchangeID) }
        let name = "the WebSocket recorded as interaction #\(number) of \(cassette.path)"
        context.attempt?.markRequestSent()
        context.attempt?.markFirstByte()
        var head = HTTPResponse(status: .switchingProtocols)
        for header in exchange.responseHeaders {
            guard let headerName = HTTPField.Name(header.name) else { continue }
            head.headerFields.append(HTTPField(name: headerName, value: header.value))
        }
        link.opened(head)
        let secrets = cassette.redactor.secrets
        var commands = link.commands.makeAsyncIterator()
        var previous = exchange.startedAt
        func fail(_ message: String) -> RawResponse {
            link.fail(cassette.streamFailure(message), code: 1008, reason: "the cassette's recording differs")
            return RawResponse(head: head)
        }
        let messages = stream.messages.sorted { $0.index < $1.index }
        for (position, message) in messages.enumerated() {
            let gap = message.at.timeIntervalSince(previous)
            previous = message.at
            switch message.direction {
            case .received:
                if cassette.streamPacing == .recorded, gap > 0 {
                    try? await context.clock.sleep(for: .milliseconds(Int64((gap * 1000).rounded())))
                }
                if Task.isCancelled { return cancelled(link, head: head) }
                let payload = secrets.restore(data: message.payload)
                switch message.type {
                case "text": link.received(.text(String(decoding: payload, as: UTF8.self)))
                case "binary": link.received(.binary(payload))
                case "ping", "pong": link.receivedControl(message.type, payload: payload)
                default: continue  // a close frame is the close below
                }
            case .sent:
                guard let command = await commands.next() else {
                    if Task.isCancelled { return cancelled(link, head: head) }
                    return fail("""
                        the client dropped \(name) without closing it where the recording has it send \
                        \(Self.shown(message.type, message.payload)) (message #\(position + 1)) next
                        """)
                }
                let (type, payload) = Self.recorded(command)
                let stored = cassette.storedPayload(payload, type: type, direction: .sent)
                guard type == message.type, stored == message.payload else {
                    return fail("""
                        the client sent \(Self.shown(type, stored)) on \(name) where the recording has it send \
                        \(Self.shown(message.type, message.payload)) (message #\(position + 1))
                        """)
                }
            }
        }
        if stream.closedBy == "client", !messages.contains(where: { $0.direction == .sent && $0.type == "close" }) {
            // Recorded as dropped by the app (or its task cancelled): the same is awaited now.
            if let command = await commands.next() {
                let (type, payload) = Self.recorded(command)
                return fail("""
                    the client sent \(Self.shown(type, cassette.storedPayload(payload, type: type, direction: .sent))) on \
                    \(name) after the \(messages.count) recorded messages, where the recording has it close
                    """)
            }
            link.clientIsClosing()
        }
        if Task.isCancelled { return cancelled(link, head: head) }
        if stream.closedBy != "client", stream.closeCode == nil || stream.closeCode == 1006 {
            link.closed(code: nil, reason: nil, error: TransportError(.connectionReset, "the recorded connection dropped"))
        } else {
            link.closed(code: stream.closeCode ?? 1000, reason: stream.closeReason.map(secrets.restore(text:)) ?? "")
        }
        return RawResponse(head: head)
    }

    private func cancelled(_ link: WebSocketLink, head: HTTPResponse) -> RawResponse {
        link.clientIsClosing()
        link.closed(code: nil, reason: nil)
        return RawResponse(head: head)
    }

    /// A command as the recorder stores it: type word and payload.
    static func recorded(_ command: WebSocketCommand) -> (String, Data) {
        switch command {
        case .message(let message): (message.type, message.data)
        case .ping(let data): ("ping", data)
        case .close(let code, let reason): ("close", WebSocketLink.closePayload(code, reason))
        }
    }

    /// A message for an error: `text "hello"`, `binary (12 bytes)`, `close 1000 "bye"`.
    static func shown(_ type: String, _ payload: Data) -> String {
        func quoted(_ data: Data) -> String {
            let line = TerminalText.line(String(decoding: data, as: UTF8.self))
            return "\"" + (line.count > 80 ? String(line.prefix(79)) + "…" : line) + "\""
        }
        switch type {
        case "text": return "text \(quoted(payload))"
        case "close":
            let bytes = [UInt8](payload)
            guard bytes.count >= 2 else { return "close" }
            let code = Int(bytes[0]) << 8 | Int(bytes[1])
            return bytes.count > 2 ? "close \(code) \(quoted(Data(bytes.dropFirst(2))))" : "close \(code)"
        default: return "\(type) (\(payload.count) bytes)"
        }
    }

    private func requireUpstream(for request: HTTPRequest) throws(CassetteError) -> any WebSocketTransport {
        guard let upstream else {
            throw CassetteError(.noUpstream, path: cassette.path, message: """
                cassette \(cassette.path) (mode .\(cassette.mode.rawValue)) must connect a WebSocket to \
                \(TerminalText.line(Cassette.url(of: request))) but has no upstream transport: pass one to webSocketTransport(upstream:)
                """)
        }
        return upstream
    }
}

extension Cassette {
    /// A live message's payload as the cassette would store it (secrets as placeholders, then redacted), to compare
    /// with a recorded one.
    func storedPayload(_ payload: Data, type: String, direction: MessageDirection) -> Data {
        let exchange = TraceExchange(
            id: UUID(), operation: "", method: "GET", url: "", startedAt: now(), outcome: .success,
            stream: TraceStream(kind: .webSocket, messages: [
                TraceMessage(index: 0, direction: direction, at: now(), type: type, size: payload.count, payload: payload),
            ]))
        return redactor.stored(exchange).stream?.messages.first?.payload ?? payload
    }
}
