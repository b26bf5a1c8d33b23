import Foundation
import HTTPTypes
import Hummingbird
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
        try await withLocalServer(router) { baseURL in
            let observer = InMemoryClientObserver()
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
        }
    }
}
