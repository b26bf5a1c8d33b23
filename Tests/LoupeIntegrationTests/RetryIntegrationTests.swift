import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import NIOCore
import Synchronization
import Testing

/// Retry over loopback against a small Hummingbird server of its own, through AsyncHTTPClient. Delays are a few
/// milliseconds on the real clock and no timing is asserted: these tests prove the wire behaviour, the unit tests
/// prove the timing.
@Suite struct RetryIntegrationTests {
    @Test func aServerFailingTwiceIsAnsweredOnTheThirdAttempt() async throws {
        try await withRetryServer { baseURL, hits in
            let observer = InMemoryClientObserver()
            // The server asks for Retry-After: 1; the decider shortens the wait so the test stays fast.
            let policy = RetryPolicy(decide: { $0.response?.status.code == 503 ? .retry(after: .milliseconds(20)) : nil })
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [RetryMiddleware(policy: policy)], observer: observer)
            let response = try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("flaky")))

            #expect(response.status == .ok)
            #expect(String(decoding: response.value, as: UTF8.self) == "ok")
            #expect(response.attempts.map(\.status) == [503, 503, 200])
            #expect(hits.count("/flaky") == 3)
            let reasons = observer.notifications.compactMap { if case .attemptStarted(let a) = $0 { a.annotations.retryReason } else { nil } }
            #expect(reasons == ["503", "503"])
            #expect(observer.events.map { $0.attributes["source"] } == ["decider", "decider"])
            #expect(observer.finishedExchanges.first?.attemptCount == 3)
        }
    }

    @Test func retryAfterFromTheServerIsHonoured() async throws {
        try await withRetryServer { baseURL, hits in
            let observer = InMemoryClientObserver()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [RetryMiddleware()], observer: observer)
            let response = try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("busy")))
            #expect(response.status == .ok)
            #expect(hits.count("/busy") == 2)
            #expect(observer.events.first?.attributes == ["attempt": "2", "delayMs": "0", "reason": "429", "source": "retry-after"])
        }
    }

    @Test func postIsSentOnceWithoutAKeyAndRetriedWithOne() async throws {
        try await withRetryServer { baseURL, hits in
            let policy = RetryPolicy(backoff: .constant(.milliseconds(5)), jitter: .none)
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [RetryMiddleware(policy: policy)])
            let url = baseURL.appendingPathComponent("orders")
            let bare = try await client.execute(HTTPRequest(method: .post, url: url), body: .string(#"{"item":"lens"}"#))
            #expect(bare.status.code == 503)
            #expect(hits.count("/orders") == 1)

            let keyed = HTTPRequest(method: .post, url: url, headerFields: [RetryPolicy.idempotencyKey: "order-17"])
            let retried = try await client.execute(keyed, body: .string(#"{"item":"lens"}"#))
            #expect(retried.status.code == 503)
            #expect(hits.count("/orders") == 4)
        }
    }

    @Test func aRefusedConnectionIsRetriedThenReported() async throws {
        // Port 9 (discard) on loopback is closed on CI machines, so every connect is refused at once.
        let observer = InMemoryClientObserver()
        let policy = RetryPolicy(backoff: .constant(.milliseconds(5)), jitter: .none)
        let client = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: AsyncHTTPClientTransport(),
                            middlewares: [RetryMiddleware(policy: policy)], observer: observer)
        // AsyncHTTPClient keeps trying to connect until the attempt's timeout, so keep that short.
        let error = await #expect(throws: ClientError.self) {
            try await client.execute(HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/x")!),
                                     options: RequestOptions(timeout: .milliseconds(200)))
        }
        #expect((error?.underlyingError as? TransportError)?.kind == .connectFailed)
        #expect(observer.finishedExchanges.first?.attemptCount == 3)
        #expect(observer.events.map(\.kind) == [.retryScheduled, .retryScheduled, .retryGivenUp])
    }
}

/// Counts requests per path, so each route can fail a set number of times.
private final class RetryServerHits: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func next(_ path: String) -> Int {
        counts.withLock { counts in
            counts[path, default: 0] += 1
            return counts[path]!
        }
    }

    func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }
}

private func reply(_ text: String, _ status: HTTPResponse.Status, retryAfter: String? = nil) -> Response {
    var headers: HTTPFields = [.contentType: "text/plain"]
    if let retryAfter { headers[.retryAfter] = retryAfter }
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
}

private func retryRouter(_ hits: RetryServerHits) -> Router<BasicRequestContext> {
    let router = Router()
    // 503 with Retry-After: 1 twice, then 200.
    router.get("/flaky") { _, _ in
        hits.next("/flaky") <= 2 ? reply("unavailable", .serviceUnavailable, retryAfter: "1") : reply("ok", .ok)
    }
    // 429 asking for no wait once, then 200.
    router.get("/busy") { _, _ in
        hits.next("/busy") == 1 ? reply("slow down", .tooManyRequests, retryAfter: "0") : reply("ok", .ok)
    }
    router.post("/orders") { _, _ in
        _ = hits.next("/orders")
        return reply("unavailable", .serviceUnavailable)
    }
    return router
}

/// Runs `body` against a fresh server on an ephemeral loopback port, stopping it afterwards.
private func withRetryServer(_ body: (URL, RetryServerHits) async throws -> Void) async throws {
    let hits = RetryServerHits()
    try await withLocalServer(retryRouter(hits)) { baseURL in try await body(baseURL, hits) }
}
