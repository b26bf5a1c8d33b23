import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeReplay
import LoupeTesting
import Testing

@Suite("Replay requests: base URL, header overrides, outcomes")
struct ReplayRequestTests {
    static let original = TraceExchange(
        id: UUID(), operation: "POST /orders", method: "POST", url: "https://prod.example.test:8443/v1/orders?page=2&q=a%20b",
        startedAt: Date(timeIntervalSince1970: 0), outcome: .success, status: 201,
        requestHeaders: [
            TraceHeader(name: "Host", value: "prod.example.test"), TraceHeader(name: "Authorization", value: "[REDACTED]"),
            TraceHeader(name: "X-Env", value: "prod"), TraceHeader(name: "X-Env", value: "prod-2"),
            TraceHeader(name: "Content-Length", value: "2"), TraceHeader(name: "Accept", value: "application/json"),
        ],
        requestBody: TraceBody(data: Data("{}".utf8), size: 2, isTruncated: false))

    @Test("--base-url changes scheme, host and port; the path and query stay as recorded")
    func baseURL() throws {
        let (request, _) = try TraceReplayer.request(for: Self.original, baseURL: URL(string: "http://127.0.0.1:9000")!)
        #expect(request.url?.absoluteString == "http://127.0.0.1:9000/v1/orders?page=2&q=a%20b")
        let (defaultPort, _) = try TraceReplayer.request(for: Self.original, baseURL: URL(string: "https://staging.example.test")!)
        #expect(defaultPort.url?.absoluteString == "https://staging.example.test/v1/orders?page=2&q=a%20b")
    }

    @Test("-H replaces every recorded field of that name or adds one; redacted, Host and length fields are dropped")
    func headers() throws {
        let overrides: HTTPFields = [HTTPField.Name("X-Env")!: "staging", .authorization: "Bearer fresh"]
        let (request, body) = try TraceReplayer.request(for: Self.original, headers: overrides)
        let fields = request.headerFields.map { "\($0.name.rawName): \($0.value)" }
        #expect(fields == ["Accept: application/json", "X-Env: staging", "Authorization: Bearer fresh"])
        #expect(body?.bufferedData == Data("{}".utf8))
    }

    @Test("a redacted query value is never sent as the marker: left out, or given a value (issue 43.6)")
    func redactedQuery() throws {
        var original = Self.original
        original.url = "https://prod.example.test/v1/items?page=2&api_key=%5BREDACTED%5D&q=a%20b&token=%5BREDACTED%5D&api_key=%5BREDACTED%5D"
        #expect(TraceReplayer.redactedQueryNames(in: original.url) == ["api_key", "token"])
        let (left, _) = try TraceReplayer.request(for: original)
        #expect(left.url?.absoluteString == "https://prod.example.test/v1/items?page=2&q=a%20b")
        let (filled, _) = try TraceReplayer.request(for: original, queryValues: ["api_key": "k&1 +=é"])
        #expect(filled.url?.absoluteString
                == "https://prod.example.test/v1/items?page=2&api_key=k%261%20%2B%3D%C3%A9&q=a%20b&api_key=k%261%20%2B%3D%C3%A9")
        original.url = "https://prod.example.test/v1/items?api_key=%5BREDACTED%5D"
        let (none, _) = try TraceReplayer.request(for: original)
        #expect(none.url?.absoluteString == "https://prod.example.test/v1/items", "no empty ? left behind")
        #expect(TraceReplayer.redactedQueryNames(in: Self.original.url).isEmpty)
    }

    @Test("a replay is a new request: new trace and span ids, the original's tracestate dropped, an override kept")
    func newTraceContext() throws {
        var original = Self.original
        original.requestHeaders += [
            TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            TraceHeader(name: "tracestate", value: "vendor=abc"),
        ]
        let recorded = try #require(original.traceContext)
        let (request, _) = try TraceReplayer.request(for: original)
        let sent = try #require(request.headerFields[HTTPField.Name("traceparent")!].flatMap(TraceContext.init(traceparent:)))
        #expect(sent.traceID != recorded.traceID && sent.spanID != recorded.spanID && sent.sampled)
        #expect(request.headerFields[HTTPField.Name("tracestate")!] == nil)
        let (again, _) = try TraceReplayer.request(for: original)
        #expect(again.headerFields[HTTPField.Name("traceparent")!] != request.headerFields[HTTPField.Name("traceparent")!],
                "every replay is its own request")
        // The caller's own context is sent as given.
        let mine = "00-11111111111111111111111111111111-2222222222222222-00"
        let (overridden, _) = try TraceReplayer.request(for: original, headers: [HTTPField.Name("traceparent")!: mine])
        #expect(overridden.headerFields[values: HTTPField.Name("traceparent")!] == [mine])
        // A recording without trace context gets none.
        let (plain, _) = try TraceReplayer.request(for: Self.original)
        #expect(plain.headerFields[HTTPField.Name("traceparent")!] == nil)
    }

    @Test("an outcome records the new exchange's id and status, or the kind of failure")
    func outcomes() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(store: store)
        let transport = MockTransport { request, _, _ in
            if request.path?.hasPrefix("/down") == true { throw TransportError(.connectFailed, "refused") }
            return RawResponse(status: .created, body: Data("ok".utf8))
        }
        let client = Client(baseURL: URL(string: "https://prod.example.test")!, transport: transport, observer: inspector)
        let replayer = TraceReplayer(client: client)
        let clock = ManualClock()
        let sent = await replayer.outcome(of: Self.original, baseURL: nil, headers: [:], timeout: nil, isNoiseRun: false, clock: clock)
        #expect(sent.status == 201 && sent.errorKind == nil && sent.originalID == Self.original.id)
        var down = Self.original
        down.url = "https://prod.example.test/down"
        let failed = await replayer.outcome(of: down, baseURL: nil, headers: [:], timeout: nil, isNoiseRun: true, clock: clock)
        #expect(failed.status == nil && failed.errorKind == "connect failed" && failed.isNoiseRun)
        #expect(failed.error == "connect failed: refused")
        var truncated = Self.original
        truncated.requestBody?.isTruncated = true
        let unsent = await replayer.outcome(of: truncated, baseURL: nil, headers: [:], timeout: nil, isNoiseRun: false, clock: clock)
        #expect(unsent.replayID == nil && unsent.errorKind == "not sent")
        await inspector.flush()
        let recorded = try store.exchange(id: try #require(sent.replayID))
        #expect(recorded?.replayOf == Self.original.id && recorded?.status == 201)
        #expect(try store.exchange(id: try #require(failed.replayID))?.replayOf == down.id)
        await inspector.shutdown()
    }
}
