import GRPCCore
import GRPCNIOTransportHTTP2

/// The demo's gRPC service (``DemoGRPCService``) served over HTTP/2 on 127.0.0.1 by grpc-swift's NIO transport.
public struct DemoGRPCServer: Sendable {
    /// The port it listens on.
    public let port: Int
    let server: GRPCServer<HTTP2ServerTransport.Posix>
    let task: Task<Void, any Error>

    /// Starts the service on `port` (0 picks a free one) and returns once it listens.
    public static func start(port: Int = 0) async throws -> DemoGRPCServer {
        let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: port),
                                                   transportSecurity: .plaintext)
        let server = GRPCServer(transport: transport, services: [DemoGRPCService()])
        let task = Task { try await server.serve() }
        do {
            guard let bound = try await transport.listeningAddress.ipv4?.port else {
                throw RPCError(code: .internalError, message: "the demo's gRPC server has no IPv4 address")
            }
            return DemoGRPCServer(port: bound, server: server, task: task)
        } catch {
            server.beginGracefulShutdown()
            task.cancel()
            _ = await task.result
            throw error
        }
    }

    /// Stops accepting calls, ends those running and waits until the socket is closed.
    public func stop() async {
        server.beginGracefulShutdown()
        task.cancel()
        _ = await task.result
    }
}
