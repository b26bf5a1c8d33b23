import Hummingbird
import Logging
import NIOCore

/// The loopback benchmarks' server, shared by `LoupeBenchmarks` and `LoupeProfile`: Hummingbird on 127.0.0.1 at
/// an ephemeral port, answering `GET /ping` with a small JSON body.
public enum LoopbackServer {
    /// Starts the server and returns once it listens. `onPing` runs for every request (to count them).
    public static func start(
        name: String, body: String, onPing: @escaping @Sendable () -> Void = {}
    ) async throws -> (server: Task<Void, any Error>, port: Int) {
        let router = Router()
        router.get("/ping") { _, _ in
            onPing()
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: name),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: Logger(label: "loupe.\(name)", factory: { _ in SwiftLogNoOpLogHandler() }))
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        var bound: Int?
        for await port in ports { bound = port }
        guard let port = bound, port > 0 else {
            server.cancel()
            _ = await server.result
            throw StartError()
        }
        return (server, port)
    }

    /// The server stopped before it listened.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String { "the loopback server did not start" }
    }
}
