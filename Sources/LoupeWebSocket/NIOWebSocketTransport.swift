import Foundation
import HTTPTypes
import HummingbirdWSClient
import HummingbirdWSCompression
import Logging
import Loupe
import NIOCore
import NIOSSL
import NIOWebSocket

/// WebSocket over SwiftNIO: hummingbird-websocket's `WebSocketClient` (RFC 6455 framing, the upgrade, masking,
/// ping answers, fragments reassembled, `permessage-deflate`), under the client's handshake exchange.
///
/// ```swift
/// let socket = try await client.webSocket(request, transport: NIOWebSocketTransport())
/// try socket.send("hello")
/// for try await message in socket.messages { … }
/// ```
/// The handshake carries every header the middleware set (auth, tracing) except the ones the upgrade itself owns.
/// The library reports a refused upgrade without its status, so a refusal is one ``TransportError`` (`other`).
public struct NIOWebSocketTransport: WebSocketTransport {
    /// TLS for `wss` (the system's roots when nil).
    public var tlsConfiguration: TLSConfiguration?
    /// The largest frame sent; longer messages go in fragments. Default 16 KiB.
    public var maxFrameSize: Int

    public init(tlsConfiguration: TLSConfiguration? = nil, maxFrameSize: Int = 1 << 14) {
        self.tlsConfiguration = tlsConfiguration
        self.maxFrameSize = max(125, maxFrameSize)
    }

    /// The upgrade's own fields, which the library writes: copies from the request would be sent twice.
    static let owned: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "content-length", "transfer-encoding",
    ]

    public func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse {
        let scheme = (request.scheme ?? "http").lowercased()
        let wsScheme = scheme == "https" || scheme == "wss" ? "wss" : "ws"
        let url = "\(wsScheme)://\(request.authority ?? "")\(request.path ?? "/")"
        var headers = HTTPFields()
        for field in request.headerFields where !Self.owned.contains(field.name.canonicalName) { headers.append(field) }
        // The library's own wait for a close's answer runs only after a failure (our close unanswered, a message too
        // large): ours (`options.closeTimeout`, below) has run by then, so it is short.
        // The frame checks and the bounded inflating sit in the library's extension chain (WebSocketFrameGuard says
        // why); messages are put together here, not by the library, so each refusal is known as the client's.
        let frameGuard = WebSocketFrameGuard()
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: max(maxFrameSize, options.maxMessageBytes), additionalHeaders: headers,
            extensions: frameGuard.extensions(compression: options.compression, maxBytes: options.maxMessageBytes),
            closeTimeout: .milliseconds(250))
        let maxMessage = options.maxMessageBytes
        let outboundFrameSize = maxFrameSize
        let closeTimeout = options.closeTimeout
        context.attempt?.markRequestSent()
        let client = WebSocketClient(
            url: url, configuration: configuration, tlsConfiguration: tlsConfiguration, logger: Self.logger
        ) { inbound, outbound, _ in
            context.attempt?.markFirstByte()
            link.opened(HTTPResponse(status: .switchingProtocols), extensions: options.compression ? "permessage-deflate (offered)" : nil)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The reader: the connection lasts as long as it reads. After our close it goes on reading, so the
                // messages the server sent before it saw the close are delivered and recorded, until its answer.
                group.addTask {
                    var assembly = WebSocketMessageAssembly(maxBytes: maxMessage)
                    do {
                        for try await frame in inbound {
                            if let refusal = frameGuard.current { throw refusal }
                            switch assembly.add(frame) {
                            case .none: continue
                            case .message(let message): link.received(message)
                            case .refuse(let refusal): throw refusal
                            }
                        }
                    } catch NIOWebSocketError.invalidFrameLength {
                        // One frame past the limit: NIO's decoder refused it (and answered 1009 itself).
                        throw WebSocketRefusal.tooLarge(maxMessage)
                    }
                    // A check noted a refusal on a frame the library then dropped, and the server closed.
                    if let refusal = frameGuard.current { throw refusal }
                }
                // The writer: once it has sent the close it waits at most `closeTimeout` for the reader to end.
                group.addTask {
                    for await command in link.commands {
                        switch command {
                        case .message(.text(let text)):
                            try await Self.write(ByteBuffer(string: text), text: true, to: outbound, frameSize: outboundFrameSize)
                        case .message(.binary(let data)):
                            try await Self.write(ByteBuffer(bytes: data), text: false, to: outbound, frameSize: outboundFrameSize)
                        case .ping(let data):
                            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(bytes: data))))
                        case .close(let code, let reason):
                            try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason.isEmpty ? nil : reason)
                            try await Task.sleep(for: closeTimeout)
                            throw CloseUnanswered(timeout: closeTimeout)
                        }
                    }
                    // Cancelled: the server closed first and reading ended. Otherwise the app dropped the socket.
                    if Task.isCancelled { return }
                    link.clientIsClosing()
                    try await outbound.close(.normalClosure, reason: nil)
                    try await Task.sleep(for: closeTimeout)
                    throw CloseUnanswered(timeout: closeTimeout)
                }
                // The first to end ends the connection: the reader (the server closed or dropped, or the client
                // refused what it sent), or the writer (its close went unanswered: thrown here).
                do {
                    try await group.next()
                } catch let refusal as WebSocketRefusal {
                    // Our close carries the refusal's code; the library's own close after this finds it sent.
                    try? await outbound.close(WebSocketErrorCode(codeNumber: refusal.code), reason: refusal.reason)
                    throw refusal
                }
                group.cancelAll()
            }
        }
        let running = Task { try await client.run() }
        do {
            let close = try await withTaskCancellationHandler {
                if await HandshakeDeadline.timedOut(running, timeout: options.handshakeTimeout, isOpen: { link.hasOpened }) {
                    running.cancel()
                    throw TransportError(.timedOut, "no answer to the WebSocket handshake within \(Quantity.duration(options.handshakeTimeout))")
                }
                return try await running.value
            } onCancel: {
                running.cancel()
            }
            let code = close.map { Self.number($0.closeCode) }
            if let code, !WebSocketRefusal.isValidOnTheWire(code) {
                // The library answered it with 1002: what went on the wire was the client's refusal.
                let refusal = WebSocketRefusal.invalidCloseCode(code)
                link.refused(code: refusal.code, reason: refusal.reason)
            } else {
                link.closed(code: code, reason: close?.reason)
            }
        } catch let refusal as WebSocketRefusal {
            link.refused(code: refusal.code, reason: refusal.reason)
        } catch let unanswered as CloseUnanswered {
            link.closed(code: nil, reason: unanswered.description)
        } catch {
            // Before the connection opened it is the handshake's failure: thrown, so retry and the breaker see it.
            guard link.hasOpened else { throw Self.transportError(error) }
            if Task.isCancelled { link.clientIsClosing() }
            link.closed(code: nil, reason: nil, error: error)
        }
        return RawResponse(head: HTTPResponse(status: .switchingProtocols))
    }

    /// Writes one message, in fragments of at most `frameSize` bytes (the library reassembles on the other side).
    static func write(_ buffer: ByteBuffer, text: Bool, to outbound: WebSocketOutboundWriter, frameSize: Int) async throws {
        if buffer.readableBytes <= frameSize {
            try await outbound.write(text ? .text(String(buffer: buffer)) : .binary(buffer))
            return
        }
        if text {
            try await outbound.withTextMessageWriter { writer in
                var buffer = buffer
                while let slice = buffer.readSlice(length: min(frameSize, buffer.readableBytes)), slice.readableBytes > 0 {
                    try await writer(slice)
                }
            }
        } else {
            try await outbound.writeBinaryMessage(buffer)
        }
    }

    static func transportError(_ error: any Error) -> TransportError {
        if let error = error as? TransportError { return error }
        if let error = error as? WebSocketClientError, error == .webSocketUpgradeFailed || error == .invalidURL {
            return TransportError(.other, "the WebSocket upgrade was refused (\(error))")
        }
        if error is NIOSSLError { return TransportError(.tls, "\(error)") }
        if error is CancellationError { return TransportError(.cancelled, "cancelled") }
        return TransportError(.connectFailed, "\(error)")
    }

    static func number(_ code: WebSocketErrorCode) -> Int {
        var buffer = ByteBuffer()
        buffer.write(webSocketErrorCode: code)
        return Int(buffer.readInteger(as: UInt16.self) ?? 1006)
    }

    static let logger = Logger(label: "Loupe.WebSocket")

    /// The server did not answer the client's close within ``WebSocketOptions/closeTimeout``: the connection is
    /// dropped, recorded as 1006 by the client with this reason.
    struct CloseUnanswered: Error, CustomStringConvertible {
        let timeout: Duration
        var description: String { "no close from the server within \(Quantity.duration(timeout))" }
    }
}
