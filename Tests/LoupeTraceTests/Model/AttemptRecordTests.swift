import Foundation
import HTTPTypes
@testable import Loupe
import LoupeTrace
import Testing

@Suite struct AttemptRecordTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("a stored attempt is the client's record field for field, the retry delay in seconds")
    func traceAttemptFromRecord() {
        let record = AttemptRecord(
            number: 2, request: HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/x"),
            timings: AttemptTimings(start: Self.start, requestSent: Self.start + 0.1, firstByte: Self.start + 0.2, end: Self.start + 0.3),
            annotations: AttemptAnnotations(retryReason: "503", retryDelay: .milliseconds(250), circuitState: "closed", extra: ["k": "v"]),
            response: HTTPResponse(status: .serviceUnavailable), error: nil)
        let attempt = TraceAttempt(record)
        #expect(attempt == TraceAttempt(
            number: 2, startedAt: Self.start, requestSentAt: Self.start + 0.1, firstByteAt: Self.start + 0.2,
            endedAt: Self.start + 0.3, status: 503, circuitState: "closed", retryReason: "503", retryDelay: 0.25,
            notes: ["k": "v"]))
        #expect(attempt.timings == record.timings)
    }

    @Test("stored durations are milliseconds to the microsecond")
    func storedMilliseconds() {
        #expect(Duration.milliseconds(250).storedMilliseconds == "250")
        #expect(Duration.microseconds(199_250).storedMilliseconds == "199.25")
        #expect(Duration.seconds(7).storedMilliseconds == "7000")
        #expect(Duration.zero.storedMilliseconds == "0")
        #expect(Duration.milliseconds(-5).storedMilliseconds == "0")
    }

    @Test("an event kind this version does not name survives JSON as its raw string")
    func unknownEventKind() throws {
        let event = TraceEvent(kind: ExchangeEventKind(rawValue: "from-the-future"), at: Self.start, message: "m")
        let data = try JSONEncoder().encode(event)
        #expect(String(decoding: data, as: UTF8.self).contains("\"kind\":\"from-the-future\""))
        #expect(try JSONDecoder().decode(TraceEvent.self, from: data).kind.rawValue == "from-the-future")
    }

    @Test("a summary's host and path come from the store's columns when given, and from one parse otherwise")
    func summaryHostAndPath() {
        func summary(_ url: String, host: String? = nil, path: String? = nil) -> TraceSummary {
            TraceSummary(id: UUID(), sequence: 1, operation: "op", method: "GET", url: url, startedAt: Self.start,
                         duration: nil, outcome: .success, status: 200, error: nil, attemptCount: 1, replayOf: nil,
                         host: host, path: path)
        }
        let parsed = summary("https://api.test:8443/v1/a%20b?q=1#frag")
        #expect(parsed.host == "api.test" && parsed.pathAndQuery == "/v1/a%20b?q=1")
        let columns = summary("https://api.test/v1/a?q=1#frag", host: "column-host", path: "/column")
        #expect(columns.host == "column-host" && columns.pathAndQuery == "/column?q=1")
        #expect(summary("https://api.test").pathAndQuery == "/")
    }
}
