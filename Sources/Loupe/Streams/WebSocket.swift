import Foundation
import HTTPTypes
import Synchronization

/// A WebSocket data message: text or binary, whole (fragments already reassembled).
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary(Data)

    /// The recorded type word (`text`, `binary`).
    public var type: String {
        switch self {
        case .text: "text"
        case .binary: "binary"
        }
    }

    /// The payload bytes.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }
}

/// How a WebSocket ended.
public struct WebSocketClose: Sendable, Hashable {
    /// The close code (RFC 6455 §7.4: 1000 normal, 1001 going away, 1006 closed without a close frame…).
    public var code: Int
    public var reason: String
    /// Who closed it: the client (``WebSocket/close(code:reason:)``, or the task cancelled) or the server (a close
    /// frame, or the connection dropped: code 1006).
    public var byClient: Bool

    public init(code: Int, reason: String = "", byClient: Bool) {
        self.code = code
        self.reason = reason
        self.byClient = byClient
    }
}

/// What a WebSocket transport is asked to send, in order.
public enum WebSocketCommand: Sendable, Hashable {
    case message(WebSocketMessage)
    case ping(Data)
    case close(code: Int, reason: String)
}

/// Options of ``Client/webSocket(_:transport:options:)``.
public struct WebSocketOptions: Sendable {
    /// Ask the server for `permessage-deflate` (used when the server agrees and the transport offers it).
    public var compression: Bool
    /// A received message larger than this fails the connection (close 1009). Default 16 MiB.
    public var maxMessageBytes: Int
    /// How long the client waits for the server's answer to its close frame, reading (and recording) the messages
    /// that still arrive meanwhile, before it drops the connection (recorded as 1006 by the client). Default 5 s.
    public var closeTimeout: Duration

    /// How long the client waits for the server's answer to the handshake before it gives up (the exchange fails
    /// with a ``TransportError`` `timed out`). Default 10 s.
    public var handshakeTimeout: Duration

    public init(compression: Bool = true, maxMessageBytes: Int = 16 << 20, closeTimeout: Duration = .seconds(5),
                handshakeTimeout: Duration = .seconds(10)) {
        self.compression = compression
        self.maxMessageBytes = max(1, maxMessageBytes)
        self.closeTimeout = max(.milliseconds(1), closeTimeout)
        self.handshakeTimeout = max(.milliseconds(1), handshakeTimeout)
    }
}

/// Opens WebSocket connections: the protocol itself, under the client's handshake exchange. `LoupeWebSocket`'s
/// `NIOWebSocketTransport` (hummingbird-websocket's client) on Linux, `LoupeURLSession`'s on Apple platforms.
///
/// ``connect(_:context:options:link:)`` sends the handshake for `request` (the request as the middleware left it:
/// auth and tracing headers included), calls ``WebSocketLink/opened(_:)`` once the connection is open, then runs
/// it: hands each received message to ``WebSocketLink/received(_:)``, sends each of ``WebSocketLink/commands``,
/// and returns the handshake's response once the connection has closed, after ``WebSocketLink/closed(_:)``. A
/// failure before the connection opened is thrown as a ``TransportError`` (so retry and the breaker see it); a
/// drop after it is a close (1006), not an error.
public protocol WebSocketTransport: Sendable {
    func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse
}

/// Between a ``WebSocket`` the app holds and the transport running it: commands one way, messages the other,
/// every message reported to the exchange's observer (the recorder) as it passes.
public final class WebSocketLink: Sendable {
    private struct State {
        var context: RequestContext?
        var open: CheckedContinuation<WebSocket, any Error>?
        var socket: WebSocket?
        var close: WebSocketClose?
        var closeRequested = false
        var hasOpened = false
        var exchangeEnded = false
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var tap: (@Sendable (WebSocketTap) -> Void)?
    }

    /// What the app asked to send, in order; ends when the app closed or dropped the socket.
    public let commands: AsyncStream<WebSocketCommand>
    let commandInput: AsyncStream<WebSocketCommand>.Continuation
    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    let messageInput: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let state = Mutex(State())

    init() {
        (commands, commandInput) = AsyncStream.makeStream(of: WebSocketCommand.self)
        (messages, messageInput) = AsyncThrowingStream.makeStream(of: WebSocketMessage.self)
    }

    /// Sees everything that passes, as the observer does, but whole and in order: what `LoupeTesting`'s cassettes
    /// record a conversation from (they sit where the transport does, so they never see the app's side otherwise).
    /// Set before the connection opens; called on the paths of the messages, so it must return at once.
    package func setTap(_ tap: @escaping @Sendable (WebSocketTap) -> Void) {
        state.withLock { $0.tap = tap }
    }

    private var tap: (@Sendable (WebSocketTap) -> Void)? { state.withLock { $0.tap } }

    /// The exchange the connection belongs to: set before the transport is called.
    func attach(_ context: RequestContext) {
        state.withLock { $0.context = context }
    }

    func waitUntilOpen() async throws -> WebSocket {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> WebSocket? in
                if let socket = state.socket.take() { return socket }
                state.open = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The exchange has ended: its record is with the observer.
    func endExchange() {
        let waiters = state.withLock { state in
            state.exchangeEnded = true
            defer { state.endWaiters = [] }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilExchangeEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if !state.exchangeEnded { state.endWaiters.append(continuation) }
                return state.exchangeEnded
            }
            if ended { continuation.resume() }
        }
    }

    /// The handshake failed or the exchange ended before the connection opened.
    func failBeforeOpen(_ error: any Error) {
        let waiter = state.withLock { $0.open.take() }
        waiter?.resume(throwing: error)
        messageInput.finish(throwing: error)
    }

    /// The connection is open: `response` is the handshake's response head, when the transport knows it.
    public func opened(_ response: HTTPResponse?, extensions: String? = nil) {
        let (waiter, socket, context) = state.withLock { state -> (CheckedContinuation<WebSocket, any Error>?, WebSocket, RequestContext?) in
            let socket = WebSocket(link: self, response: response, exchangeID: state.context?.exchangeID)
            state.hasOpened = true
            let waiter = state.open.take()
            // Held only until the opener takes it: the app's reference is the socket's life (its deinit closes).
            if waiter == nil { state.socket = socket }
            return (waiter, socket, state.context)
        }
        var attributes = ["attempt": String(context?.attempt?.number ?? 0)]
        if let extensions { attributes["extensions"] = extensions }
        context?.record(.streamOpen, "WebSocket opened", attributes: attributes)
        tap?(.opened(response))
        waiter?.resume(returning: socket)
    }

    /// A whole message arrived.
    public func received(_ message: WebSocketMessage) {
        let context = state.withLock { $0.context }
        context?.recordMessage(.received, type: message.type, payload: message.data, stream: .webSocket)
        tap?(.message(.received, type: message.type, payload: message.data))
        messageInput.yield(message)
    }

    /// A control frame arrived that the transport shows (`ping`, `pong`).
    public func receivedControl(_ type: String, payload: Data = Data()) {
        let context = state.withLock { $0.context }
        context?.recordMessage(.received, type: type, payload: payload, stream: .webSocket)
        tap?(.message(.received, type: type, payload: payload))
    }

    /// The connection closed; `code` nil when no close frame said one (recorded as 1006). Who closed is known here:
    /// the client if it asked to close first.
    public func closed(code: Int?, reason: String?, error: (any Error)? = nil) {
        finish(code: code, reason: reason, error: error, failing: false)
    }

    /// The client failed the connection: a message over ``WebSocketOptions/maxMessageBytes``, or the server broke
    /// the protocol (a masked frame, text that is not UTF-8, a close code never valid on the wire). Recorded as
    /// closed by the client with `code` (what the client sent), and ``WebSocket/messages`` ends throwing a
    /// ``TransportError`` that says why: the client's decision, never blamed on the server.
    public func refused(code: Int, reason: String) {
        finish(code: code, reason: reason, error: TransportError(.other, "the client failed the WebSocket: \(code) \(reason)"),
               failing: true, byClient: true)
    }

    /// The conversation cannot go on (a cassette's recording and the app's messages differ): closed with `code`
    /// and ``WebSocket/messages`` ends throwing `error` whoever asked to close, so the app's reader sees why.
    package func fail(_ error: any Error, code: Int, reason: String) {
        finish(code: code, reason: reason, error: error, failing: true)
    }

    private func finish(code: Int?, reason: String?, error: (any Error)?, failing: Bool, byClient decided: Bool? = nil) {
        let (context, byClient) = state.withLock { state -> (RequestContext?, Bool) in
            let byClient = decided ?? (state.closeRequested || Task.isCancelled)
            state.close = WebSocketClose(code: code ?? 1006, reason: reason ?? "", byClient: byClient)
            return (state.context, byClient)
        }
        let close = WebSocketClose(code: code ?? 1006, reason: reason ?? "", byClient: byClient)
        context?.record(.streamClose, "WebSocket closed by the \(byClient ? "client" : "server"): \(close.code)\(close.reason.isEmpty ? "" : " \(close.reason)")",
                        attributes: ["by": byClient ? "client" : "server", "code": String(close.code), "reason": close.reason])
        tap?(.closed(close))
        commandInput.finish()
        if let error, failing || (code == nil && !byClient) { messageInput.finish(throwing: error) } else { messageInput.finish() }
    }

    var close: WebSocketClose? { state.withLock { $0.close } }

    /// Whether ``opened(_:extensions:)`` was called: a failure after it is a close, not a handshake failure.
    public var hasOpened: Bool { state.withLock { $0.hasOpened } }

    /// The app dropped the socket without closing it: the transport closes it, and the close is the client's.
    public func clientIsClosing() {
        state.withLock { $0.closeRequested = true }
    }

    func send(_ command: WebSocketCommand) throws {
        let context = state.withLock { state -> RequestContext? in
            if case .close = command { state.closeRequested = true }
            return state.context
        }
        guard state.withLock({ $0.close == nil }) else { throw WebSocketClosedError() }
        let (type, payload): (String, Data)
        switch command {
        case .message(let message): (type, payload) = (message.type, message.data)
        case .ping(let data): (type, payload) = ("ping", data)
        case .close(let code, let reason): (type, payload) = ("close", Self.closePayload(code, reason))
        }
        context?.recordMessage(.sent, type: type, payload: payload, stream: .webSocket)
        tap?(.message(.sent, type: type, payload: payload))
        if case .terminated = commandInput.yield(command) { throw WebSocketClosedError() }
    }

    /// A close frame's payload: the code in two bytes, then the reason.
    package static func closePayload(_ code: Int, _ reason: String) -> Data {
        Data([UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)]) + Data(reason.utf8)
    }
}

/// What a ``WebSocketLink``'s tap sees (`package`: for `LoupeTesting`'s cassettes).
package enum WebSocketTap: Sendable {
    /// The connection opened with this handshake response.
    case opened(HTTPResponse?)
    /// A message or control frame passed, as recorded: type word and payload (a close's is code then reason).
    case message(MessageDirection, type: String, payload: Data)
    /// The connection closed.
    case closed(WebSocketClose)
}

/// The connection was already closed.
public struct WebSocketClosedError: Error, CustomStringConvertible {
    public var description: String { "the WebSocket is closed" }
}

/// An open WebSocket: send text and binary messages, ping, close; read ``messages`` as they arrive. The whole
/// connection is one exchange, recorded message by message. Ends when either side closes, or when the task that
/// opened it is cancelled.
public final class WebSocket: Sendable {
    let link: WebSocketLink
    /// The handshake's response head, when the transport knows it.
    public let response: HTTPResponse?
    /// The recorded exchange this connection is.
    public let exchangeID: UUID?

    init(link: WebSocketLink, response: HTTPResponse?, exchangeID: UUID?) {
        self.link = link
        self.response = response
        self.exchangeID = exchangeID
    }

    /// Every message received, in order, fragments reassembled; ends when the connection closes (throwing when
    /// it dropped).
    public var messages: AsyncThrowingStream<WebSocketMessage, any Error> { link.messages }

    /// Sends a text message.
    public func send(_ text: String) throws { try link.send(.message(.text(text))) }
    /// Sends a binary message.
    public func send(_ data: Data) throws { try link.send(.message(.binary(data))) }
    /// Sends a ping (the server's pong is handled by the transport).
    public func ping(_ data: Data = Data()) throws { try link.send(.ping(data)) }
    /// Starts the closing handshake with `code` and `reason`. Messages the server sent before it saw the close still
    /// arrive; ``messages`` ends once the server answers, or after ``WebSocketOptions/closeTimeout`` without one.
    public func close(code: Int = 1000, reason: String = "") throws { try link.send(.close(code: code, reason: reason)) }
    /// How the connection ended, once it has.
    public var closeInfo: WebSocketClose? { link.close }

    /// Returns once the connection has closed and its exchange has ended, its record handed to the client's observer:
    /// await it after ``messages`` ends and before shutting a recorder down, or the exchange may come after the
    /// shutdown. Waits as long as the connection stays open (a close is answered or times out:
    /// ``WebSocketOptions/closeTimeout``).
    public func exchangeEnded() async { await link.waitUntilExchangeEnded() }

    deinit {
        // Dropped without a close: the transport closes it (1000) when the commands end.
        link.commandInput.finish()
    }
}

extension Client {
    /// Opens a WebSocket to `request`'s URL (`http`/`https` or `ws`/`wss`) with `transport`.
    ///
    /// The handshake goes through the middleware chain as one exchange: auth adds its credentials, tracing its
    /// headers, the breaker may refuse it, retry may repeat a handshake that failed to connect. Once open, the
    /// exchange stays open with the connection and every message, both ways, is reported to the observer. Returns
    /// once the connection is open; throws ``ClientError`` when it could not be.
    public func webSocket(_ request: HTTPRequest, transport: any WebSocketTransport, options: RequestOptions = RequestOptions(),
                          webSocket: WebSocketOptions = WebSocketOptions()) async throws -> WebSocket {
        let link = WebSocketLink()
        let client = Client(baseURL: baseURL, transport: WebSocketHandshakeTransport(transport: transport, link: link, options: webSocket),
                            middlewares: middlewares, observer: observer, configuration: configuration)
        var options = options
        options.timeout = options.timeout ?? configuration.timeout
        options.stream = .webSocket
        var metadata = RequestMetadata.current
        metadata.streamsResponseBody = true
        let task = Task { [metadata, options] in
            do {
                _ = try await RequestMetadata.$current.withValue(metadata) {
                    try await client.perform(request, body: nil, options: options, validate: false) { $0.status.code }
                }
                link.failBeforeOpen(WebSocketClosedError())  // a no-op once open
            } catch {
                link.failBeforeOpen(error)
            }
            link.endExchange()
        }
        // The reader was cancelled: so is the connection. (Finishing, which the close does, is not a cancel.)
        link.messageInput.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await link.waitUntilOpen()
        } onCancel: {
            task.cancel()
        }
    }

    /// ``webSocket(_:transport:options:webSocket:)`` for an endpoint.
    public func webSocket<E: Endpoint>(_ endpoint: E, transport: any WebSocketTransport, options: RequestOptions = RequestOptions(),
                                       webSocket: WebSocketOptions = WebSocketOptions()) async throws -> WebSocket {
        let request: HTTPRequest
        do {
            request = try makeRequest(endpoint).0
        } catch {
            throw ClientError(operation: endpoint.operationName, request: nil, stage: .encoding, underlyingError: error)
        }
        var options = options
        options.operation = options.operation ?? endpoint.operationName
        return try await self.webSocket(request, transport: transport, options: options, webSocket: webSocket)
    }
}

/// The bottom of a WebSocket's handshake exchange: hands the request, as the middleware left it, to the WebSocket
/// transport, which returns when the connection has closed.
struct WebSocketHandshakeTransport: ClientTransport {
    let transport: any WebSocketTransport
    let link: WebSocketLink
    let options: WebSocketOptions

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        link.attach(context)
        return try await transport.connect(request, context: context, options: options, link: link)
    }
}
