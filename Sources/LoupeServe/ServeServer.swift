import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import LoupeLink
import NIOCore
import NIOSSL

/// A running `loupe serve`: recordings answered over HTTP/1.1 on a host and port until ``stop()``.
///
/// Hummingbird's HTTP/1.1 server carries it (keep-alive, pipelining, a 400 for a request it cannot parse, at most
/// 1,000 header fields and 80 KiB of header text); an idle connection is closed after ``idleTimeout``.
public struct ServeServer: Sendable {
    /// The port bound (the one asked for, or the one the system picked for 0).
    public let port: Int
    /// The host bound.
    public let host: String
    let task: Task<Void, any Error>
    let responder: ServeResponder

    /// Served exchanges dropped before they reached `--store` (its writer's queue was full).
    package var droppedRecordings: Int { responder.droppedRecordings }

    /// How long a connection may stay silent before it is closed.
    public static let idleTimeout: TimeAmount = .seconds(30)

    /// Starts serving `library` on `host`:`port` (0 picks a free port) and returns once it accepts connections.
    /// With `tls`, HTTPS with that identity's self-signed certificate (the live link's kind, made on first use).
    package static func start(library: ServeLibrary, options: ServeOptions, host: String = "127.0.0.1", port: Int = 0,
                              tls: LinkIdentity? = nil, log: @escaping @Sendable (String) -> Void) async throws -> ServeServer {
        let responder = ServeResponder(library: library, options: options, log: log)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // With a recorded WebSocket conversation, a handshake that matches one is upgraded and every other request
        // goes to the responder; with --passthrough, a handshake that matches none is relayed. Only then: the upgrading pipeline closes a connection whose request it cannot parse
        // where the plain one answers 400, and answers a handshake that matches nothing 400 itself.
        var server: HTTPServerBuilder = .http1(configuration: .init(idleTimeout: idleTimeout))
        if library.requests.contains(where: \.webSocket) || options.passthrough != nil {
            server = .http1WebSocketUpgrade(configuration: .init(http1: .init(idleTimeout: idleTimeout))) { request, _, _ in
                await responder.upgrade(request)
            }
        }
        if let tls {
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(tls.certificate)], privateKey: .privateKey(tls.privateKey))
            server = try .tls(server, tlsConfiguration: configuration)
        }
        let app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            },
            logger: Logger(label: "loupe.serve", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let task = Task {
            // A server that never ran (its port in use) ends the wait for its port too, or `start` would hang.
            defer { continuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        for await bound in ports {
            return ServeServer(port: bound, host: host, task: task, responder: responder)
        }
        let failure = await task.result
        if case .failure(let error) = failure { throw error }
        throw CancellationError()
    }

    /// Starts every sequence over, as `POST /__loupe/reset` does: the next request gets its first recording.
    public func reset() {
        responder.reset()
    }

    /// Stops the server, waits until it has closed its socket, then until what it served is written to the store.
    public func stop() async {
        task.cancel()
        _ = await task.result
        await responder.finishRecording()
    }
}
