import Foundation
import Loupe
@testable import LoupeTrace
import Testing

/// The writer redacts its exchange in place (``RedactionPolicy/redact(_:alsoSent:)``, DECISIONS 53): the same
/// result as ``RedactionPolicy/redact(exchange:alsoSent:)``, and a copy taken before keeps its values.
@Suite("Redaction in place")
struct RedactionInPlaceTests {
    static func exchange() -> TraceExchange {
        var exchange = TraceExchange(
            id: UUID(), operation: "GET /v1/items?api_key=k3y_0123456789", method: "GET",
            url: "https://api.example.com/v1/items?api_key=k3y_0123456789", startedAt: Date(timeIntervalSince1970: 0),
            outcome: .success, status: 200, error: "refused Bearer tok_ABCDEFGH12345678",
            requestHeaders: [TraceHeader(name: "Authorization", value: "Bearer tok_ABCDEFGH12345678"),
                             TraceHeader(name: "X-Echo", value: "tok_ABCDEFGH12345678")],
            requestBody: TraceBody(data: Data(#"{"password":"hunter2hunter2","q":"k3y_0123456789"}"#.utf8), size: 51, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Set-Cookie", value: "sid=s3ss10n_value_99; Path=/"),
                              TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: TraceBody(data: Data(#"{"echo":"s3ss10n_value_99"}"#.utf8), size: 27, isTruncated: false))
        exchange.attempts = [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: 0),
                                          notes: ["echo": "tok_ABCDEFGH12345678", "breaker": "api"])]
        exchange.events = [TraceEvent(kind: .recorderDrop, at: Date(timeIntervalSince1970: 0), message: "hunter2hunter2",
                                      attributes: ["sid": "s3ss10n_value_99"])]
        return exchange
    }

    @Test("in place gives what the returning form gives, and a copy taken before still holds every raw value")
    func sameAsReturningAndCopiesUntouched() throws {
        let policy = RedactionPolicy()
        let alsoSent = [[TraceHeader(name: "Authorization", value: "Bearer old_T0KEN_abcdefgh")]]
        var exchange = Self.exchange()
        let before = exchange  // shares every list and body with `exchange`
        policy.redact(&exchange, alsoSent: alsoSent)
        #expect(exchange == policy.redact(exchange: before, alsoSent: alsoSent))
        #expect(before == Self.exchange().with(id: before.id))
        let text = String(decoding: try JSONEncoder().encode(exchange), as: UTF8.self)
        for secret in ["tok_ABCDEFGH12345678", "k3y_0123456789", "hunter2hunter2", "s3ss10n_value_99"] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(exchange.requestHeaders[0].value == RedactionPolicy.marker)
        #expect(before.requestHeaders[0].value == "Bearer tok_ABCDEFGH12345678")

        var headers = before.requestHeaders
        var secrets = SecretCollector(minimumLength: 8)
        policy.redact(headers: &headers, collecting: &secrets)
        #expect(headers == policy.redact(headers: before.requestHeaders))
        #expect(before.requestHeaders[0].value == "Bearer tok_ABCDEFGH12345678")
    }
}

private extension TraceExchange {
    func with(id: UUID) -> TraceExchange {
        var copy = self
        copy.id = id
        return copy
    }
}
