import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Loupe
import LoupeAsyncHTTPClient
import Testing
import Tracing

/// The tracing middleware against a real server on loopback: what arrives on the wire is what was recorded.
@Suite struct ObservabilityIntegrationTests {
    @Test func theServerReceivesEachAttemptsTraceparentAndTheRecorderSeesIt() async throws {
        let router = Router()
        // Answers with the traceparent it received, so the test sees the wire, not the middleware's intent.
        router.get("trace") { request, _ -> String in request.headers[HTTPField.Name("traceparent")!] ?? "none" }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: Logger(label: "loupe.tests.trace", factory: { _ in SwiftLogNoOpLogHandler() }))
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let observer = InMemoryClientObserver()
        let baseURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let client = Client(
            baseURL: baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [TracingMiddleware(tracer: NoOpTracer()), AttemptTracingMiddleware(tracer: NoOpTracer())],
            observer: observer)
        let response = try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("trace")))
        let received = String(decoding: response.body, as: UTF8.self)

        let hex = response.exchangeID.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let parent = String(UInt64(hex.suffix(16), radix: 16)! &+ 1, radix: 16)
        #expect(received == "00-\(hex)-\(String(repeating: "0", count: 16 - parent.count) + parent)-01")
        let recorded = observer.notifications.compactMap { if case .attemptStarted(let a) = $0 { a } else { nil } }
        #expect(recorded.map { $0.request.headerFields[HTTPField.Name("traceparent")!] } == [received])
        server.cancel()
        _ = await server.result
    }
}
