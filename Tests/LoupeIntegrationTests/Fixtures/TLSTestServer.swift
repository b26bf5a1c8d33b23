import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOSSL

/// A Hummingbird HTTPS server on `127.0.0.1` and an ephemeral port, presenting the test server certificate.
struct TLSTestServer: Sendable {
    let port: Int
    private let task: Task<Void, any Error>

    /// `https://127.0.0.1:PORT`.
    var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }

    /// Starts the server presenting `certificate` (PEM) with `key`, `/hello` answering `hello`; returns once it
    /// accepts connections.
    static func start(certificate: URL, key: URL) async throws -> TLSTestServer {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
        let router = Router()
        router.get("hello") { _, _ in "hello" }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: try .tls(.http1(), tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "loupe-pinning-test"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: Logger(label: "loupe.tests.tls", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        for await port in ports { return TLSTestServer(port: port, task: task) }
        if case .failure(let error) = await task.result { throw error }
        throw CancellationError()
    }

    /// Stops the server and waits until its socket is closed.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Runs `body` against a fresh TLS test server presenting `certificate` (the CA-signed one for 127.0.0.1 by
/// default), stopping it afterwards.
func withTLSTestServer<T: Sendable>(
    _ certificates: TestCertificates, presenting certificate: URL? = nil, key: URL? = nil, _ body: (URL) async throws -> T
) async throws -> T {
    let server = try await TLSTestServer.start(
        certificate: certificate ?? certificates.leafFile, key: key ?? certificates.leafKeyFile)
    do {
        let result = try await body(server.baseURL)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
