import Foundation
import InMemoryTracing
import Loupe
import LoupeTrace
import Testing
import Tracing
@testable import LoupeTestSupport

@Suite("Spans from recorded exchanges")
struct TraceSpanExporterTests {
    static func nanoseconds(_ date: Date) -> UInt64 { UInt64((date.timeIntervalSince1970 * 1e9).rounded()) }

    @Test("an exchange is a client span with a child span per attempt, at the recorded instants")
    func exchangeAndAttempts() throws {
        let tracer = InMemoryTracer()
        let exchange = HARFixtures.exchanges[0]
        TraceSpanExporter(tracer: tracer).export(exchange)

        let spans = tracer.finishedSpans
        #expect(spans.count == 3)
        let parent = try #require(spans.first { $0.operationName == "listUsers" })
        let attempts = spans.filter { $0.parentSpanID == parent.spanID }.sorted {
            $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch
        }
        #expect(attempts.count == 2)
        #expect(parent.parentSpanID == nil)
        #expect(Set(spans.map(\.traceID)).count == 1)
        #expect(parent.kind == .client && attempts.allSatisfy { $0.kind == .client && $0.operationName == "GET" })

        #expect(parent.startInstant.nanosecondsSinceEpoch == Self.nanoseconds(exchange.startedAt))
        #expect(parent.endInstant.nanosecondsSinceEpoch == Self.nanoseconds(exchange.endedAt!))
        for (span, attempt) in zip(attempts, exchange.attempts) {
            #expect(span.startInstant.nanosecondsSinceEpoch == Self.nanoseconds(attempt.startedAt))
            #expect(span.endInstant.nanosecondsSinceEpoch == Self.nanoseconds(attempt.endedAt!))
            #expect(span.events.map(\.name) == ["loupe.request_sent", "loupe.first_byte"])
            #expect(span.events[1].nanosecondsSinceEpoch == Self.nanoseconds(attempt.firstByteAt!))
        }

        let attributes = parent.attributes
        #expect(attributes.get("http.request.method") == .string("GET"))
        #expect(attributes.get("url.full") == .string(exchange.url))
        #expect(attributes.get("url.scheme") == .string("https"))
        #expect(attributes.get("server.address") == .string("api.example.com"))
        #expect(attributes.get("server.port") == .int64(443))
        #expect(attributes.get("http.response.status_code") == .int64(200))
        #expect(attributes.get("error.type") == nil)
        #expect(attributes.get("loupe.operation") == .string("listUsers"))
        #expect(attributes.get("loupe.exchange_id") == .string(exchange.id.uuidString))
        #expect(attributes.get("loupe.attempts") == .int64(2))
        #expect(parent.status == nil)

        let first = attempts[0].attributes
        #expect(first.get("http.response.status_code") == .int64(503))
        #expect(first.get("error.type") == .string("503"))
        #expect(first.get("http.request.resend_count") == nil)
        #expect(first.get("loupe.circuit.state") == .string("closed"))
        #expect(attempts[0].status?.code == .error)
        let second = attempts[1].attributes
        #expect(second.get("http.request.resend_count") == .int64(1))
        #expect(second.get("loupe.attempt") == .int64(2))
        #expect(second.get("loupe.retry.reason") == .string("status 503"))
        #expect(second.get("loupe.retry.delay_ms") == .double(199.25))
    }

    @Test("retries and breaker transitions are events on the exchange span")
    func events() throws {
        let tracer = InMemoryTracer()
        let exchange = HARFixtures.exchanges[0]
        TraceSpanExporter(tracer: tracer).export(exchange)
        let parent = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
        #expect(parent.events.map(\.name) == ["loupe.retry", "loupe.circuit"])
        #expect(parent.events[0].nanosecondsSinceEpoch == Self.nanoseconds(exchange.events[0].at))
        #expect(parent.events[0].attributes.get("message") == .string("Retrying after 503 in 199 ms"))
        #expect(parent.events[1].attributes.get("to") == .string("closed"))
    }

    @Test("failures set the error status and error.type; a short circuit has no attempt spans")
    func failures() throws {
        let tracer = InMemoryTracer()
        TraceSpanExporter(tracer: tracer).export([HARFixtures.exchanges[2], HARFixtures.exchanges[3]])
        let roots = tracer.finishedSpans.filter { $0.parentSpanID == nil }
        #expect(roots.map(\.operationName).sorted() == ["GET /health", "getUser"])

        let refused = try #require(roots.first { $0.operationName == "GET /health" })
        #expect(refused.status?.code == .error)
        #expect(refused.attributes.get("error.type") == .string("transportError"))
        #expect(refused.attributes.get("server.port") == .int64(8080))
        let attempts = tracer.finishedSpans.filter { $0.parentSpanID == refused.spanID }
        #expect(attempts.count == 3)
        #expect(attempts.allSatisfy { $0.status?.code == .error && $0.attributes.get("error.type") == .string("transportError") })
        #expect(attempts.compactMap { $0.attributes.get("http.request.resend_count") }.count == 2)

        let shortCircuited = try #require(roots.first { $0.operationName == "getUser" })
        #expect(shortCircuited.attributes.get("error.type") == .string("shortCircuited"))
        #expect(tracer.finishedSpans.filter { $0.parentSpanID == shortCircuited.spanID }.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("replays link to their original; user info never reaches url.full")
    func replayAndUserInfo() throws {
        let tracer = InMemoryTracer()
        var exchange = HARFixtures.exchanges[4]
        exchange.url = "https://user:%5BREDACTED%5D@api.example.com:8443/v1/notes"
        TraceSpanExporter(tracer: tracer).export(exchange)
        let parent = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
        #expect(parent.attributes.get("loupe.replay_of") == .string("11111111-1111-4111-8111-111111111111"))
        #expect(parent.attributes.get("url.full") == .string("https://api.example.com:8443/v1/notes"))
        #expect(parent.attributes.get("server.port") == .int64(8443))
    }
}
