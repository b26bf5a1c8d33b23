import Foundation
import HTTPTypes
import Loupe
@testable import LoupeTrace
import Testing

/// The writer builds each exchange's trace at the end of its batch and redacts it there (DECISIONS 53): the result
/// must be exactly the trace made on its own, redacted and capped, and the exchanges already in the batch untouched.
@Suite struct AppendTraceTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func pending(_ n: Int, token: String, adapter: String? = nil, droppedBefore: Int = 0) -> PendingExchange {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer \(token)"
        fields[.contentType] = "application/json"
        let request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.test",
                                  path: "/login/\(n)?access_token=\(token)&page=\(n)", headerFields: fields)
        var pending = PendingExchange(ExchangeStarted(
            exchangeID: UUID(), operation: "login \(token)", request: request,
            requestBody: Data(#"{"user":"ada","password":"hunter2-\#(n)","note":"\#(token)"}"#.utf8),
            startedAt: start, adapter: adapter))
        pending.finish(with: ExchangeFinished(
            exchangeID: pending.id, outcome: .success, response: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
            responseBody: Data(String(repeating: "x", count: 40 + n).utf8 + Data(#" echo \#(token)"#.utf8)),
            endedAt: start.addingTimeInterval(0.5),
            attempts: [AttemptRecord(number: 1, request: request, timings: AttemptTimings(start: start))]),
            droppedBefore: droppedBefore)
        return pending
    }

    @Test("a batch built in place holds exactly the traces made one by one, each redacted and capped")
    func sameAsOneByOne() throws {
        let policy = RedactionPolicy(jsonFieldNames: ["password"])
        let exchanges = [
            Self.pending(1, token: "TOKEN-one-123456"), Self.pending(2, token: "TOKEN-two-654321", adapter: "app-adapter"),
            Self.pending(3, token: "TOKEN-three-99999", adapter: RecordingAdapter.urlSession, droppedBefore: 2),
        ]
        var batch: [TraceExchange] = []
        for var exchange in exchanges { exchange.appendTrace(to: &batch, policy: policy, bodyCap: 30) }
        #expect(batch == exchanges.map { $0.makeTrace(policy: policy, bodyCap: 30) })
        for (trace, token) in zip(batch, ["TOKEN-one-123456", "TOKEN-two-654321", "TOKEN-three-99999"]) {
            let encoded = String(decoding: try JSONEncoder().encode(trace), as: UTF8.self)
            #expect(!encoded.contains(token) && !encoded.contains("hunter2"))
            #expect(trace.requestBody?.isTruncated == true && trace.requestBody?.data.count == 30)
        }
        #expect(batch[2].events.map(\.kind) == [.recorderDrop, .adapter])
    }

    @Test("without a final response, the last attempt gives the headers and status; earlier attempts' tokens are scrubbed")
    func lastAttemptReadInPlace() throws {
        func request(_ token: String) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/v1/items",
                        headerFields: [.authorization: "Bearer \(token)", .accept: "application/json"])
        }
        let old = "OLD-token-1234567", new = "NEW-token-7654321"
        var pending = PendingExchange(ExchangeStarted(
            exchangeID: UUID(), operation: "items", request: request("app"), startedAt: Self.start))
        pending.finish(with: ExchangeFinished(
            exchangeID: pending.id, outcome: .transportError, endedAt: Self.start.addingTimeInterval(1),
            attempts: [
                AttemptRecord(number: 1, request: request(old), timings: AttemptTimings(start: Self.start),
                              response: HTTPResponse(status: .unauthorized), error: "401 for \(old)"),
                AttemptRecord(number: 2, request: request(new), timings: AttemptTimings(start: Self.start),
                              response: HTTPResponse(status: .serviceUnavailable), error: "reset after \(new)"),
            ]), droppedBefore: 0)
        var batch: [TraceExchange] = []
        pending.appendTrace(to: &batch, policy: RedactionPolicy(), bodyCap: 1 << 20)
        let trace = try #require(batch.first)
        #expect(trace.status == 503)
        #expect(trace.requestHeaders.map(\.name) == ["Authorization", "Accept"])
        #expect(trace.requestHeaders.first?.value == RedactionPolicy.marker)
        let encoded = String(decoding: try JSONEncoder().encode(trace), as: UTF8.self)
        #expect(!encoded.contains(old) && !encoded.contains(new))
        #expect(trace.attempts.map(\.status) == [401, 503])
    }

    @Test("an exchange made from a borrowed start record keeps every field of it, and the record stays whole (DECISIONS 53)")
    func startRecordBorrowed() {
        let id = UUID(), replayed = UUID()
        let request = HTTPRequest(method: .put, scheme: "http", authority: "ü.example.test:8080", path: "/a/b?c=d",
                                  headerFields: [.accept: "text/plain", .userAgent: "tests"])
        let started = ExchangeStarted(exchangeID: id, operation: "put things", request: request, requestBody: Data("body".utf8),
                                      startedAt: Self.start, replayOf: replayed, adapter: "app-adapter", stream: .eventStream)
        let pending = PendingExchange(started, messageCap: 3, payloadCap: 5)
        #expect(pending.id == id && pending.operation == "put things" && pending.method == "PUT")
        #expect(pending.url == "http://ü.example.test:8080/a/b?c=d")
        #expect(pending.startedAt == Self.start && pending.appHeaders == request.headerFields)
        #expect(pending.requestBody == Data("body".utf8) && pending.replayOf == replayed && pending.adapter == "app-adapter")
        #expect(pending.stream == .eventStream && pending.messages != nil)
        #expect(started.request == request && started.operation == "put things" && started.requestBody == Data("body".utf8))
    }
}
