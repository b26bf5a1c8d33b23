import Foundation
import Loupe
import LoupeTrace
import Testing
import Tracing
@testable import LoupeOTLP

/// The OTLP request body, byte for byte, against a golden built by the real opentelemetry-proto classes
/// (Fixtures/golden-request.py), and the ids an exchange's spans get.
struct OTLPEncodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let id = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A retried GET: 503, then 200.
    static var retried: TraceExchange {
        TraceExchange(
            id: id, operation: "getUser", method: "GET", url: "http://127.0.0.1:8080/users/1", startedAt: t0,
            endedAt: t0 + 0.25, outcome: .success, status: 200,
            attempts: [
                TraceAttempt(number: 1, startedAt: t0, requestSentAt: t0 + 0.0625, endedAt: t0 + 0.125, status: 503),
                TraceAttempt(number: 2, startedAt: t0 + 0.1875, endedAt: t0 + 0.25, status: 200, retryReason: "HTTP 503",
                             retryDelay: 0.0625),
            ])
    }

    @Test func aRetriedExchangeEncodesToTheGoldenBytes() throws {
        let golden = try String(contentsOf: Self.fixtures.appendingPathComponent("golden-request.hex"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let batch = OTLPTraceRequest.encode([Self.retried])
        #expect(batch.spanCount == 3)
        #expect(batch.exchangeCount == 1)
        let hex = batch.body.map { String(format: "%02x", $0) }.joined()
        #expect(hex == golden, "differs from the protobuf encoding of the same message; first difference at byte \(zip(hex, golden).prefix { $0 == $1 }.count / 2)")
    }

    @Test func varintsAndLengthsWidenPast127() {
        var writer = ProtobufWriter()
        writer.writeVarint(300)
        #expect(writer.bytes == [0xAC, 0x02])
        var message = ProtobufWriter()
        message.messageField(1) { $0.stringField(1, String(repeating: "x", count: 200)) }
        // tag, length 203 as two bytes, inner tag, inner length 200 as two bytes, then the text
        #expect(Array(message.bytes.prefix(6)) == [0x0A, 0xCB, 0x01, 0x0A, 0xC8, 0x01])
        #expect(message.bytes.count == 6 + 200)
        var negative = ProtobufWriter()
        negative.varintField(3, -1, always: true)
        #expect(negative.bytes == [0x18] + Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test func withoutATraceparentTheIdsAreLoupesFallbackTraceparents() throws {
        let ids = OTLPSpanIDs(Self.retried)
        #expect(ids.traceID == withUnsafeBytes(of: Self.id.uuid) { Array($0) })
        for attempt in 0...2 {
            let header = TraceContextPropagation.fallbackTraceparent(exchangeID: Self.id, attempt: attempt)
            let context = try #require(TraceContext(traceparent: header))
            let role: RecordedSpan.Role = attempt == 0 ? .exchange : .attempt(attempt)
            #expect(OTLPSpanIDs.bytes(hex: context.spanID) == ids.spanID(role))
            #expect(OTLPSpanIDs.bytes(hex: context.traceID) == ids.traceID)
        }
    }

    @Test func aRecordedTraceparentKeepsItsTraceIDAndGivesItsSpanToTheLastAttempt() {
        var exchange = Self.retried
        exchange.requestHeaders = [TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]
        let ids = OTLPSpanIDs(exchange)
        #expect(ids.traceID == OTLPSpanIDs.bytes(hex: "4bf92f3577b34da6a3ce929d0e0e4736"))
        #expect(ids.spanID(.attempt(2)) == OTLPSpanIDs.bytes(hex: "00f067aa0ba902b7"))
        #expect(ids.spanID(.attempt(1)) == OTLPSpanIDs.bigEndian(0x8899_AABB_CCDD_EEFF &+ 1))
        #expect(ids.exchangeSpanID == OTLPSpanIDs.bigEndian(0x8899_AABB_CCDD_EEFF))
        // Re-exporting gives the same bytes: the ids are derived, never drawn.
        #expect(OTLPTraceRequest.encode([exchange]) == OTLPTraceRequest.encode([exchange]))
    }

    @Test func linkedAppsAreResourcesOfTheirOwn() {
        var linked = Self.retried
        linked.id = UUID()
        linked.source = TraceSource(app: "checkout", host: "web-1", pid: 42)
        let body = OTLPTraceRequest.encode([Self.retried, linked, Self.retried]).body
        // Two ResourceSpans (field 1 of the request): the local app's and checkout's.
        var reader = ProtobufReader(body)
        var resources = 0
        while let (field, _) = reader.next() { if field == 1 { resources += 1 } }
        #expect(resources == 2)
        #expect(String(decoding: body, as: UTF8.self).contains("checkout"))
        #expect(OTLPTraceRequest.spanCount(of: [Self.retried, linked]) == 6)
    }

    @Test func theMappingIsTraceSpanExportersOwn() {
        // One mapping: the spans OTLP encodes are the ones TraceSpanExporter hands a tracer.
        let spans = Self.retried.recordedSpans
        #expect(spans.map(\.name) == ["getUser", "GET", "GET"])
        #expect(spans.map(\.role) == [.exchange, .attempt(1), .attempt(2)])
        #expect(spans[2].attributes.get("http.request.resend_count") == .int64(1))
        #expect(spans[1].errorMessage == .some("HTTP 503"))
        #expect(spans[0].errorMessage == nil)
    }
}
