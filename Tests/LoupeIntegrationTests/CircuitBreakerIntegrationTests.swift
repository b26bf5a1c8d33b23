import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import LoupeTesting
import NIOCore
import Synchronization
import Testing

/// The circuit breaker over loopback, through AsyncHTTPClient, against a small Hummingbird server of its own that
/// counts every request it receives. Breaker time runs on a `ManualClock` injected as the client's clock, so the
/// 30-second wait in open passes at once.
@Suite struct CircuitBreakerIntegrationTests {
    static func breaker(window: Int, permitted: Int = 2) -> CircuitBreakerMiddleware {
        var configuration = CircuitBreakerConfiguration()
        configuration.slidingWindow = .count(window)
        configuration.minimumNumberOfCalls = window
        configuration.waitDurationInOpen = .seconds(30)
        configuration.permittedCallsInHalfOpen = permitted
        return CircuitBreakerMiddleware(configuration: configuration)
    }

    static func client(_ baseURL: URL, _ breaker: CircuitBreakerMiddleware, _ observer: InMemoryClientObserver, _ clock: ManualClock) -> Client {
        var configuration = ClientConfiguration()
        configuration.clock = clock
        return Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [breaker],
                      observer: observer, configuration: configuration)
    }

    @Test func anOpenCircuitFailsFastWithoutReachingTheServerAndAHealthyProbeClosesIt() async throws {
        try await withBreakerServer { baseURL, server in
            let (clock, observer, breaker) = (ManualClock(), InMemoryClientObserver(), Self.breaker(window: 4))
            let client = Self.client(baseURL, breaker, observer, clock)
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("api"))
            let key = "127.0.0.1:\(baseURL.port ?? 0)"

            for _ in 0..<4 {
                let response = try await client.execute(request)
                #expect(response.status == .internalServerError)
            }
            #expect(server.hits == 4)
            #expect(breaker.registry.states() == [key: .open])

            clock.advance(by: .seconds(10))
            for _ in 0..<5 {
                let error = await #expect(throws: ClientError.self) { try await client.execute(request) }
                #expect(error?.underlyingError as? CircuitOpenError == CircuitOpenError(key: key, state: .open, retryAfter: .seconds(20)))
            }
            #expect(server.hits == 4)  // the five fast failures never reached the server
            #expect(observer.finishedExchanges.filter { $0.outcome == .shortCircuited }.count == 5)

            server.healthy = true
            clock.advance(by: .seconds(20))
            for _ in 0..<2 {
                let response = try await client.execute(request)
                #expect(response.status == .ok)
            }
            #expect(server.hits == 6)
            #expect(breaker.registry.states() == [key: .closed])
            let transitions = observer.events.filter { $0.kind == .circuitTransition }.map { $0.attributes["reason"] ?? "" }
            #expect(transitions == ["failure rate 100% ≥ 50% over 4 calls", "wait of 30.0 s elapsed", "2/2 half-open probes succeeded"])
            let states = observer.notifications.compactMap { if case .attemptStarted(let a) = $0 { a.annotations.circuitState } else { nil } }
            #expect(states == ["closed", "closed", "closed", "closed", "half-open", "half-open"])
        }
    }

    @Test func aFailedProbeOpensTheCircuitAgain() async throws {
        try await withBreakerServer { baseURL, server in
            let (clock, observer, breaker) = (ManualClock(), InMemoryClientObserver(), Self.breaker(window: 2, permitted: 1))
            let client = Self.client(baseURL, breaker, observer, clock)
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("api"))
            for _ in 0..<2 { _ = try await client.execute(request) }
            clock.advance(by: .seconds(30))
            #expect(try await client.execute(request).status == .internalServerError)  // the probe reaches the server
            let error = await #expect(throws: ClientError.self) { try await client.execute(request) }
            #expect((error?.underlyingError as? CircuitOpenError)?.retryAfter == .seconds(30))
            #expect(server.hits == 3)
        }
    }

    @Test func refusedConnectionsOpenTheCircuit() async throws {
        // Port 9 (discard) on loopback is closed on CI machines, so every connect is refused at once. AHC keeps
        // retrying a refused connect until the request's deadline, so the attempt timeout is kept short.
        let baseURL = URL(string: "http://127.0.0.1:9")!
        let (clock, observer, breaker) = (ManualClock(), InMemoryClientObserver(), Self.breaker(window: 2))
        let client = Self.client(baseURL, breaker, observer, clock)
        let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("x"))
        for _ in 0..<2 {
            let error = await #expect(throws: ClientError.self) {
                try await client.execute(request, options: RequestOptions(timeout: .milliseconds(300)))
            }
            #expect(error?.underlyingError is TransportError)
        }
        let error = await #expect(throws: ClientError.self) { try await client.execute(request) }
        #expect((error?.underlyingError as? CircuitOpenError)?.key == "127.0.0.1:9")
        #expect(observer.finishedExchanges.map(\.outcome) == [.transportError, .transportError, .shortCircuited])
    }
}

/// What the test server knows: whether it is healthy, and how many requests reached it.
private final class BreakerServerState: Sendable {
    private let state = Mutex((healthy: false, hits: 0))
    var healthy: Bool {
        get { state.withLock { $0.healthy } }
        set { state.withLock { $0.healthy = newValue } }
    }
    var hits: Int { state.withLock { $0.hits } }

    /// Counts a request and says whether to answer it successfully.
    func hit() -> Bool {
        state.withLock {
            $0.hits += 1
            return $0.healthy
        }
    }
}

/// Runs `body` against a fresh server on an ephemeral loopback port, stopping it afterwards. `GET /api` answers
/// 500 until the test marks the server healthy, then 200.
private func withBreakerServer(_ body: (URL, BreakerServerState) async throws -> Void) async throws {
    let server = BreakerServerState()
    let router = Router()
    router.get("/api") { _, _ in
        let healthy = server.hit()
        return Response(status: healthy ? .ok : .internalServerError, headers: [.contentType: "text/plain"],
                        body: .init(byteBuffer: ByteBuffer(string: healthy ? "ok" : "down")))
    }
    try await withLocalServer(router) { baseURL in try await body(baseURL, server) }
}
