import CoreMetrics
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import MetricsTestKit
import Testing

@Suite struct MetricsMiddlewareTests {
    let host = ("host", "api.example.com")

    @Test func countsAndTimesExchangesByOperationHostAndStatusClass() async throws {
        let metrics = TestMetrics()
        let clock = ManualClock()
        let client = makeClockedClient(
            scriptedTransport([200, 200, 404], latency: .milliseconds(250), clock: clock),
            middlewares: [MetricsMiddleware(factory: metrics)], clock: clock)
        _ = try await client.send(GetUser(id: 1))
        _ = try await client.send(GetUser(id: 1))
        _ = try? await client.send(GetUser(id: 1))
        let ok = [("operation", "GET /users/1"), host, ("status_class", "2xx")]
        let missing = [("operation", "GET /users/1"), host, ("status_class", "4xx")]
        #expect(try metrics.expectCounter("loupe_requests_total", ok).totalValue == 2)
        #expect(try metrics.expectCounter("loupe_requests_total", missing).totalValue == 1)
        let timer = try metrics.expectTimer("loupe_request_duration_seconds", ok)
        #expect(timer.values == [250_000_000, 250_000_000])
        #expect(timer.displayUnit == .seconds)
        #expect(metrics.counters(label: "loupe_retries_total").isEmpty)
    }

    @Test func countsAttemptsBeyondTheFirstAsRetries() async throws {
        let metrics = TestMetrics()
        let client = makeClockedClient(
            scriptedTransport([503, 503, 200]), middlewares: [MetricsMiddleware(factory: metrics), RetryOn503(maxAttempts: 5)])
        _ = try await client.send(Ping())
        _ = try await client.send(Ping())  // the script now answers 200 at once: no retry
        let retries = try metrics.expectCounter("loupe_retries_total", [("operation", "GET /ping"), host])
        #expect(retries.totalValue == 2)
        #expect(metrics.counterTotal(label: "loupe_requests_total") == 2)
    }

    @Test func aFailureWithoutResponseIsTheErrorClass() async throws {
        let metrics = TestMetrics()
        let client = makeClockedClient(
            MockTransport { _, _, _ in throw TransportError(.timedOut, "slow") }, middlewares: [MetricsMiddleware(factory: metrics)])
        await #expect(throws: ClientError.self) { try await client.send(Ping()) }
        let dimensions = [("operation", "GET /ping"), host, ("status_class", "error")]
        #expect(try metrics.expectCounter("loupe_requests_total", dimensions).totalValue == 1)
        #expect(try metrics.expectTimer("loupe_request_duration_seconds", dimensions).values.count == 1)
    }

    @Test func theBreakerHookSetsOneStateGaugePerKey() throws {
        let metrics = TestMetrics()
        let middleware = MetricsMiddleware(factory: metrics)
        middleware.recordBreakerState(key: "api.example.com", state: "open")
        func gauge(_ state: String) throws -> Double? {
            try metrics.expectGauge("loupe_circuit_breaker_state", [("key", "api.example.com"), ("state", state)]).lastValue
        }
        #expect(try gauge("open") == 1)
        #expect(try gauge("closed") == 0)
        #expect(try gauge("half-open") == 0)
        middleware.recordBreakerState(key: "api.example.com", state: "half-open")
        #expect(try gauge("open") == 0)
        #expect(try gauge("half-open") == 1)
    }
}
