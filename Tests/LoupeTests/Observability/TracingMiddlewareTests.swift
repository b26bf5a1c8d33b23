import Foundation
import HTTPTypes
import InMemoryTracing
import Loupe
import LoupeTesting
import Testing
import Tracing

@Suite struct TracingMiddlewareTests {
    let traceparent = HTTPField.Name("traceparent")!
    let spanIDField = HTTPField.Name(InMemoryTracer.spanIDKey)!

    @Test func aClientSpanPerExchangeWithHTTPAttributes() async throws {
        let tracer = InMemoryTracer()
        let seen = Recorded<HTTPRequest>()
        let client = makeClockedClient(scriptedTransport([200], seen: seen), middlewares: [TracingMiddleware(tracer: tracer)])
        let response = try await client.response(GetUser(id: 7))
        let span = try #require(tracer.finishedSpans.onlyOne)
        #expect(span.operationName == "GET /users/7")
        #expect(span.kind == .client)
        #expect(span.attributes.get("http.request.method") == "GET")
        #expect(span.attributes.get("url.full") == "https://api.example.com/v1/users/7?fields=id%20name%26more")
        #expect(span.attributes.get("server.address") == "api.example.com")
        #expect(span.attributes.get("server.port") == 443)
        #expect(span.attributes.get("http.response.status_code") == 200)
        #expect(span.attributes.get("loupe.exchange_id") == .string(response.exchangeID.uuidString))
        #expect(span.attributes.get("loupe.attempts") == 1)
        #expect(span.attributes.get("error.type") == nil)
        #expect(span.status == nil)
        // The request on the wire carries the span's context, and a W3C traceparent whose trace id is the exchange id.
        let sent = try #require(seen.values.onlyOne)
        #expect(sent.headerFields[spanIDField] == span.spanID)
        #expect(tracer.performedContextInjections.count == 1)
        let hex = response.exchangeID.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let parts = try #require(sent.headerFields[traceparent]).split(separator: "-").map(String.init)
        #expect(parts.count == 4)
        #expect(parts[0] == "00" && parts[1] == hex && parts[2] == String(hex.suffix(16)) && parts[3] == "01")
    }

    @Test func aSpanPerAttemptUnderTheExchangeSpanWithWhyItHappened() async throws {
        let tracer = InMemoryTracer()
        let seen = Recorded<HTTPRequest>()
        let client = makeClockedClient(
            scriptedTransport([503, 503, 200], seen: seen),
            middlewares: [TracingMiddleware(tracer: tracer), RetryOn503(maxAttempts: 3), AttemptTracingMiddleware(tracer: tracer)])
        let response = try await client.response(Ping())
        let spans = tracer.finishedSpans
        let exchange = try #require(spans.first { $0.operationName == "GET /ping" })
        let attempts = spans.filter { $0.operationName == "GET" }
        #expect(spans.count == 4)
        #expect(attempts.count == 3)
        #expect(attempts.allSatisfy { $0.parentSpanID == exchange.spanID && $0.traceID == exchange.traceID && $0.kind == .client })
        #expect(attempts.map { $0.attributes.get("loupe.attempt") } == [1, 2, 3])
        #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, 1, 2])
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [503, 503, 200])
        #expect(attempts.map { $0.attributes.get("error.type") } == ["503", "503", nil])
        #expect(attempts.map { $0.status?.code } == [.error, .error, nil])
        #expect(attempts.map { $0.attributes.get("loupe.retry.reason") } == [nil, "503", "503"])
        #expect(attempts[1].attributes.get("loupe.retry.delay_ms") == "100.0")
        #expect(attempts[1].attributes.get("loupe.circuit.state") == "closed")
        #expect(exchange.attributes.get("loupe.attempts") == 3)
        #expect(exchange.attributes.get("http.response.status_code") == 200)
        // Each attempt went out with its own span's context, replacing the exchange span's.
        #expect(seen.values.map { $0.headerFields[spanIDField] } == attempts.map(\.spanID))
        let parents = seen.values.compactMap { $0.headerFields[traceparent]?.split(separator: "-")[2] }
        #expect(Set(parents).count == 3)
        let hex = response.exchangeID.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        #expect(seen.values.allSatisfy { $0.headerFields[traceparent]?.contains(hex) == true })
    }

    @Test func failuresAndErrorStatusesMarkTheSpan() async throws {
        let tracer = InMemoryTracer()
        let failing = makeClockedClient(
            MockTransport { _, _, _ in throw TransportError(.timedOut, "slow") }, middlewares: [TracingMiddleware(tracer: tracer)])
        await #expect(throws: ClientError.self) { try await failing.send(Ping()) }
        let failed = try #require(tracer.popFinishedSpans().onlyOne)
        #expect(failed.attributes.get("error.type") == "timed_out")
        #expect(failed.status?.code == .error)
        #expect(failed.errors.count == 1)

        let notFound = makeClockedClient(scriptedTransport([404]), middlewares: [TracingMiddleware(tracer: tracer)])
        _ = try? await notFound.send(Ping())
        let span = try #require(tracer.popFinishedSpans().onlyOne)
        #expect(span.attributes.get("error.type") == "404")
        #expect(span.status?.code == .error)
    }

    @Test func aTracerThatWritesTraceparentIsNotOverridden() async throws {
        let seen = Recorded<HTTPRequest>()
        let client = makeClockedClient(
            scriptedTransport([200], seen: seen), middlewares: [TracingMiddleware(tracer: W3CStubTracer())])
        _ = try await client.send(Ping())
        #expect(seen.values.first?.headerFields[traceparent] == W3CStubTracer.value)

        let quiet = makeClockedClient(
            scriptedTransport([200], seen: seen),
            middlewares: [TracingMiddleware(tracer: InMemoryTracer(), injectsTraceparentWhenMissing: false)])
        _ = try await quiet.send(Ping())
        #expect(seen.values.last?.headerFields[traceparent] == nil)
    }

    @Test func aTracerThatRecordsNothingStillGetsTheFallbackTraceparentPerAttempt() async throws {
        // The NoOp tracer's spans record nothing, so the middleware skips their attributes; the fallback
        // traceparent must still go out, exchange id as trace id, low 64 bits + attempt as parent id.
        let seen = Recorded<HTTPRequest>()
        let client = makeClockedClient(
            scriptedTransport([503, 200], seen: seen),
            middlewares: [
                TracingMiddleware(tracer: NoOpTracer()), RetryOn503(maxAttempts: 2), AttemptTracingMiddleware(tracer: NoOpTracer()),
            ])
        let response = try await client.response(Ping())
        let hex = response.exchangeID.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let low = try #require(UInt64(hex.suffix(16), radix: 16))
        let expected = [1, 2].map { attempt in
            let span = String(low &+ UInt64(attempt), radix: 16)
            return "00-\(hex)-\(String(repeating: "0", count: 16 - span.count))\(span)-01"
        }
        #expect(seen.values.map { $0.headerFields[traceparent] } == expected)
    }
}

/// A tracer whose propagation writes a fixed W3C `traceparent`, as an OpenTelemetry tracer would.
struct W3CStubTracer: Tracer {
    static let value = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    let spans = InMemoryTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        spans.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Carrier == Inject.Carrier {
        injector.inject(Self.value, forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Carrier == Extract.Carrier {}
}

private extension Collection {
    /// The one element, or `nil` when there are none or several.
    var onlyOne: Element? { count == 1 ? first : nil }
}
