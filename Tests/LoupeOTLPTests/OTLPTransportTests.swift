import Foundation
import HTTPTypes
import Testing
@testable import LoupeOTLP

/// How a collector's answer is read, and which endpoints are refused.
struct OTLPTransportTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func theRetryableStatusesAreOTLPsAndRetryAfterIsRead() {
        for status in [429, 502, 503, 504] {
            #expect(OTLPHTTPTransport.outcome(status: status, retryAfter: "2", body: [], now: Self.now)
                == .retryable(reason: "HTTP \(status)", retryAfter: .seconds(2)))
        }
        // An HTTP-date, through Loupe's one Retry-After reader.
        #expect(OTLPHTTPTransport.outcome(status: 503, retryAfter: "Tue, 14 Nov 2023 22:13:30 GMT", body: [], now: Self.now)
            == .retryable(reason: "HTTP 503", retryAfter: .seconds(10)))
        #expect(OTLPHTTPTransport.outcome(status: 503, retryAfter: "soon", body: [], now: Self.now)
            == .retryable(reason: "HTTP 503", retryAfter: nil))
        for status in [400, 401, 404, 413, 500] {
            #expect(OTLPHTTPTransport.outcome(status: status, retryAfter: "1", body: [], now: Self.now) == .refused(status: status))
        }
    }

    @Test func aPartialSuccessCountsItsRejectedSpans() {
        // ExportTraceServiceResponse { partial_success { rejected_spans: 300, error_message: "x" } }
        let body: [UInt8] = [0x0A, 0x06, 0x08, 0xAC, 0x02, 0x12, 0x01, 0x78]
        #expect(OTLPHTTPTransport.outcome(status: 200, retryAfter: nil, body: body, now: Self.now) == .accepted(rejectedSpans: 300))
        #expect(OTLPHTTPTransport.outcome(status: 200, retryAfter: nil, body: [], now: Self.now) == .accepted(rejectedSpans: 0))
        // A JSON answer, or bytes cut short, read as no rejection: an answer never fails an export.
        #expect(OTLPHTTPTransport.rejectedSpans(in: Array("{\"partialSuccess\":{}}".utf8)) == 0)
        #expect(OTLPHTTPTransport.rejectedSpans(in: [0x0A, 0x7F, 0x08]) == 0)
        #expect(OTLPHTTPTransport.rejectedSpans(in: [0x0A, 0x02, 0x08, 0xFF]) == 0)
    }

    @Test func endpointsAreHTTPWithAHostAndNoUserInfo() throws {
        let endpoint = try OTLPEndpoint("https://collector.example:4318/v1/traces", headers: [.authorization: "Bearer k"])
        #expect(endpoint.url.host == "collector.example")
        #expect(endpoint.headers[.authorization] == "Bearer k")
        #expect(endpoint.url.absoluteString == "https://collector.example:4318/v1/traces")
    }

    @Test("a base endpoint posts to /v1/traces, as OpenTelemetry's exporters do; a traces URL is used as given")
    func baseEndpoints() throws {
        let cases = [
            "http://127.0.0.1:4318": "http://127.0.0.1:4318/v1/traces",
            "http://127.0.0.1:4318/": "http://127.0.0.1:4318/v1/traces",
            "http://collector:4318/otlp": "http://collector:4318/otlp/v1/traces",
            "http://collector:4318/otlp/v1/traces": "http://collector:4318/otlp/v1/traces",
            "http://collector:4318/v1/traces?x=1": "http://collector:4318/v1/traces?x=1",
        ]
        for (given, posted) in cases {
            #expect(try OTLPEndpoint(given).url.absoluteString == posted, "\(given)")
        }
        for bad in ["ftp://h/v1/traces", "h:4318/v1/traces", "http:///v1/traces", "http://u:p@h/v1/traces", "", "not a url"] {
            #expect(throws: OTLPEndpointError.self, "\(bad)") { try OTLPEndpoint(bad) }
        }
    }
}
