import Foundation
import Loupe
import LoupeTrace

/// One exchange that many terms look at.
enum TraceMatchingFixtures {
    static let exchange = TraceExchange(
        id: UUID(), operation: "op", method: "GET", url: "https://example.com/a?b=c",
        startedAt: Date(timeIntervalSince1970: 1_700_000_000), endedAt: Date(timeIntervalSince1970: 1_700_000_001),
        outcome: .httpError, status: 503, requestHeaders: [TraceHeader(name: "X-Id", value: "1")],
        responseBody: TraceBody(data: Data("the secret".utf8), size: 10, isTruncated: false),
        attempts: [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: 1_700_000_000), circuitState: "open")])
}
