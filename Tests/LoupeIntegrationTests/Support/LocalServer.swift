import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOSSL

/// A Hummingbird server on `127.0.0.1` and an ephemeral port, serving a test's router over HTTP or, given a TLS
/// configuration, HTTPS. Most tests want ``withLocalServer(_:tls:_:)``, which stops it afterwards.
struct LocalServer: Sendable {
    /// `http://127.0.0.1:PORT`, or `https://` when the server speaks TLS.
    let baseURL: URL
    private let task: Task<Void, any Error>

    /// Starts serving `router` and returns once the server accepts connections. If the server stops before it
    /// listens, its error is thrown (a `CancellationError` when it had none).
    static func start(_ router: Router<BasicRequestContext>, tls: TLSConfiguration? = nil) async throws -> LocalServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: Logger(label: "loupe.tests.server", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        for await port in ports {
            return LocalServer(baseURL: URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")!, task: task)
        }
        if case .failure(let error) = await task.result { throw error }
        throw CancellationError()
    }

    /// Stops the server and waits until its socket is closed.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Runs `body`, then `stop`, whether `body` returned or threw.
func withStopping<T>(_ stop: () async -> Void, _ body: () async throws -> T) async throws -> T {
    do {
        let result = try await body()
        await stop()
        return result
    } catch {
        await stop()
        throw error
    }
}

/// Runs `body` with `router` served on an ephemeral loopback port (over TLS when `tls` is given), stopping the
/// server afterwards.
func withLocalServer<T>(
    _ router: Router<BasicRequestContext>, tls: TLSConfiguration? = nil, _ body: (URL) async throws -> T
) async throws -> T {
    let server = try await LocalServer.start(router, tls: tls)
    return try await withStopping(server.stop) { try await body(server.baseURL) }
}

/// Runs `body` against a fresh HTTPS server whose `/hello` answers `hello`, presenting `certificate` (PEM) with
/// `key` (the CA-signed certificate for 127.0.0.1 by default), stopping it afterwards.
func withTLSTestServer<T>(
    _ certificates: TestCertificates, presenting certificate: URL? = nil, key: URL? = nil, _ body: (URL) async throws -> T
) async throws -> T {
    let tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile((certificate ?? certificates.leafFile).path).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: (key ?? certificates.leafKeyFile).path, format: .pem)))
    let router = Router()
    router.get("hello") { _, _ in "hello" }
    return try await withLocalServer(router, tls: tls, body)
}
