import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A retry refused by an open circuit keeps the server's last real answer (issue 43, item 8): in a real SQLite file,
/// the exchange is short-circuited and holds the 503's status, `Retry-After` and body.
@Suite struct ShortCircuitAnswerTests {
    @Test func theRefusedRetryKeepsTheServersLast503InTheStore() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let inspector = NetworkTraceInspector(store: store)
        let id = UUID()
        var breaker = CircuitBreakerConfiguration()
        breaker.slidingWindow = .count(1)
        breaker.minimumNumberOfCalls = 1
        let middlewares: [any ClientMiddleware] = [
            RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, backoff: .none, jitter: .none)),
            CircuitBreakerMiddleware(configuration: breaker),
        ]
        let body = Data(#"{"error":"overloaded"}"#.utf8)
        let client = Fixture.client(
            [.status(503, headers: [.retryAfter: "0"], body: body), .status(200)], middlewares: middlewares,
            observer: inspector, ids: [id])
        let error = await #expect(throws: ClientError.self) { try await client.execute(Fixture.request("https://api.example.test/items")) }
        // The app's error carries the answer too.
        #expect(error?.response?.status == .serviceUnavailable && error?.underlyingError is CircuitOpenError)
        await inspector.shutdown()
        try store.close()

        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let trace = try #require(try reader.exchange(id: id))
        #expect(trace.outcome == .shortCircuited)
        #expect(trace.status == 503)
        #expect(trace.responseHeaders.contains(TraceHeader(name: "Retry-After", value: "0")))
        #expect(trace.responseBody?.data == body)
        #expect(trace.attempts.count == 1)
        let row = try #require(try reader.summaries(matching: nil, limit: 10).first)
        #expect(row.outcome == .shortCircuited && row.status == 503 && row.responseBodySize == body.count)
    }
}
