import Foundation
import HTTPTypes
import Loupe

#if canImport(Darwin)
import HTTPTypesFoundation

/// WebSocket with `URLSessionWebSocketTask`: the WebSocket transport on Apple platforms, under the client's handshake
/// exchange (``Loupe/Client/webSocket(_:transport:options:webSocket:)``).
///
/// Only on Apple platforms: on Linux, swift-corelibs-foundation's `URLSessionWebSocketTask` runs on libcurl's
/// WebSocket support, which Loupe does not rely on; use `LoupeWebSocket`'s `NIOWebSocketTransport`
/// there. The system answers pings and reassembles fragments; `permessage-deflate` is the system's to offer.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    public let session: URLSession

    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    public func connect(_ request: HTTPRequest, context: RequestContext, options: WebSocketOptions, link: WebSocketLink) async throws
        -> RawResponse {
        guard var urlRequest = URLRequest(httpRequest: request), let url = urlRequest.url,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw TransportError(.other, "the request has no URL")
        }
        if components.scheme == "http" { components.scheme = "ws" }
        if components.scheme == "https" { components.scheme = "wss" }
        urlRequest.url = components.url
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = options.maxMessageBytes
        context.attempt?.markRequestSent()
        task.resume()
        // The handshake is done when the first send or receive can go; a ping answered proves it.
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        } catch {
            task.cancel()
            throw TransportError(.connectFailed, "\(error)")
        }
        context.attempt?.markFirstByte()
        let head = (task.response as? HTTPURLResponse).flatMap(\.httpResponse) ?? HTTPResponse(status: .switchingProtocols)
        link.opened(head)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await command in link.commands {
                    switch command {
                    case .message(.text(let text)): try? await task.send(.string(text))
                    case .message(.binary(let data)): try? await task.send(.data(data))
                    case .ping: task.sendPing { _ in }
                    case .close(let code, let reason):
                        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure,
                                    reason: Data(reason.utf8))
                        return
                    }
                }
                if Task.isCancelled { return }
                link.clientIsClosing()
                task.cancel(with: .normalClosure, reason: nil)
            }
            while true {
                guard let message = try? await task.receive() else { break }
                switch message {
                case .string(let text): link.received(.text(text))
                case .data(let data): link.received(.binary(data))
                @unknown default: break
                }
            }
            group.cancelAll()
        }
        let code = task.closeCode == .invalid ? nil : task.closeCode.rawValue
        link.closed(code: code, reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) })
        return RawResponse(head: head)
    }
}
#endif
