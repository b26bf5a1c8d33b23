import Foundation
import HTTPTypes
import InMemoryTracing
@testable import Loupe
import LoupeTesting
import MetricsTestKit
import Testing

// Issue 32, item 2 (DECISIONS 21): the middleware chain runs on its caller's executor (`nonisolated(nonsending)`),
// and middleware written the ways the migration note allows still conform and run.

/// Whether the code that recorded it ran on the main actor: inside a `nonisolated(nonsending)` function
/// `#isolation` is the caller's, so a hop anywhere above it (a middleware or helper left `@concurrent`) shows as
/// `false` here.
private func onMainActor(_ isolation: isolated (any Actor)? = #isolation) -> Bool {
    isolation.map { ObjectIdentifier($0) == ObjectIdentifier(MainActor.shared) } ?? false
}

/// Notes where it ran on the way out and on the way back.
private struct WhereItRuns: ClientMiddleware {
    let seen: Recorded<Bool>

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext, next: Next
    ) async throws -> RawResponse {
        seen.append(onMainActor())
        let response = try await next(request, body, context)
        seen.append(onMainActor())
        return response
    }
}

/// A transport on the chain's executor, noting where it ran.
private struct WhereItAnswers: ClientTransport {
    let seen: Recorded<Bool>

    nonisolated(nonsending) func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        seen.append(onMainActor())
        return RawResponse(status: .ok, headerFields: [.eTag: "\"1\""], body: Data("{}".utf8))
    }
}

/// Migration step 1 only: `next` spelled out with `nonisolated(nonsending)`, `intercept` left a plain `async`
/// function (it conforms; Swift moves it to the global executor on entry).
private struct SpelledOut: ClientMiddleware {
    let name: String

    func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var request = request
        request.headerFields[HTTPField.Name("X-Out")!] = (request.headerFields[HTTPField.Name("X-Out")!].map { $0 + "," } ?? "") + name
        return try await next(request, body, context)
    }
}

/// Both steps, with `next` as `Next` and an `async` helper of its own awaited in between.
private struct BothSteps: ClientMiddleware {
    let name: String

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext, next: Next
    ) async throws -> RawResponse {
        let tagged = await tag(request)
        return try await next(tagged, body, context)
    }

    private nonisolated(nonsending) func tag(_ request: HTTPRequest) async -> HTTPRequest {
        var request = request
        request.headerFields[HTTPField.Name("X-Out")!] = (request.headerFields[HTTPField.Name("X-Out")!].map { $0 + "," } ?? "") + name
        return request
    }
}

/// A transport, authenticator and cache written before those requirements became `nonisolated(nonsending)`: plain
/// `async` witnesses, unchanged, still conform.
private struct PlainTransport: ClientTransport {
    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        RawResponse(status: .ok, headerFields: [
            HTTPField.Name("X-Seen")!: request.headerFields[HTTPField.Name("X-Out")!] ?? "",
            HTTPField.Name("X-Auth")!: request.headerFields[.authorization] ?? "",
        ])
    }
}

private struct PlainAuthenticator: Authenticator {
    func credential(for request: HTTPRequest, context: RequestContext) async throws -> String? { "plain" }
    func apply(_ credential: String, to request: inout HTTPRequest) { request.headerFields[.authorization] = "Token \(credential)" }
    func refresh(rejected: String, context: RequestContext) async throws -> CredentialRefresh<String> { .unavailable }
}

private final class PlainCache: ResponseCacheStore {
    let lookups = Recorded<String>()
    func entry(for key: ResponseCacheKey) async -> CachedResponse? {
        lookups.append(key.url)
        return nil
    }
    func store(_ entry: CachedResponse, for key: ResponseCacheKey) async {}
    func removeEntry(for key: ResponseCacheKey) async {}
}

@Suite struct MiddlewareIsolationTests {
    @Test("called from the main actor, every middleware of the resilient stack and the transport run there: no hop")
    @MainActor func theChainRunsOnItsCallersExecutor() async throws {
        let seen = Recorded<Bool>()
        var options = ResilienceOptions()
        options.tokenProvider = FixedTokens()
        options.tracing = false
        options.metrics = false
        options.logger = CapturingLogHandler.logger().0
        let stack: [any ClientMiddleware] = [
            WhereItRuns(seen: seen), TracingMiddleware(tracer: InMemoryTracer()), MetricsMiddleware(factory: TestMetrics()),
        ] + options.middlewares(clock: ContinuousClock()) + [WhereItRuns(seen: seen)]
        let handler = Client.chain(stack, WhereItAnswers(seen: seen))
        let id = UUID()
        let tracker = ExchangeTracker(
            exchangeID: id, operation: "GET /v1/x", clock: ContinuousClock(), observer: NoOpClientObserver(), now: { Date() })
        let context = RequestContext(timeout: nil, tracker: tracker)
        let response = try await handler(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/x")!), nil, context)
        #expect(response.status == .ok)
        #expect(tracker.attemptCount == 1)
        // Outer and inner middleware on the way out, the transport, then both on the way back.
        #expect(seen.values == [true, true, true, true, true])
    }

    /// Each middleware of the resilient stack alone between two watchers, so a failure names the one that hops.
    static let each: [String] = ["tracing", "logging", "metrics", "metadata", "dedup", "etag", "retry", "bearer", "throttle", "breaker"]

    @Test("called from the main actor, each middleware calls next there", arguments: each)
    @MainActor func eachMiddlewareStaysOnItsCallersExecutor(_ name: String) async throws {
        var options = ResilienceOptions()
        options.tokenProvider = FixedTokens()
        options.logger = CapturingLogHandler.logger().0
        let byName: [String: any ClientMiddleware] = [
            "tracing": TracingMiddleware(tracer: InMemoryTracer()), "metrics": MetricsMiddleware(factory: TestMetrics()),
        ]
        let resilient = options.middlewares(clock: ContinuousClock())
        let middleware = byName[name] ?? resilient.first { "\(type(of: $0))".lowercased().hasPrefix(Self.typePrefix[name] ?? name) }!
        let seen = Recorded<Bool>()
        let handler = Client.chain([WhereItRuns(seen: seen), middleware, WhereItRuns(seen: seen)], WhereItAnswers(seen: seen))
        let id = UUID()
        let tracker = ExchangeTracker(
            exchangeID: id, operation: "GET /v1/x", clock: ContinuousClock(), observer: NoOpClientObserver(), now: { Date() })
        let context = RequestContext(timeout: nil, tracker: tracker)
        _ = try await handler(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/x")!), nil, context)
        #expect(seen.values == [true, true, true, true, true], "\(name)")
    }

    static let typePrefix = ["metadata": "requestmetadata", "dedup": "deduplication", "etag": "conditionalget", "bearer": "bearertoken",
                             "breaker": "circuitbreaker"]

    @Test("middleware in both migrated spellings, and a plain async transport, authenticator and cache, still work")
    func migratedSpellingsConform() async throws {
        let cache = PlainCache()
        let client = makeClient(PlainTransport(), middlewares: [
            SpelledOut(name: "A"), BothSteps(name: "B"), ConditionalGETMiddleware(store: cache),
            AuthenticationMiddleware(PlainAuthenticator()), SpelledOut(name: "C"),
        ])
        let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/x")!))
        #expect(response.headerFields[HTTPField.Name("X-Seen")!] == "A,B,C")
        #expect(response.headerFields[HTTPField.Name("X-Auth")!] == "Token plain")
        #expect(cache.lookups.values == ["https://api.example.com/v1/x"])
    }
}

/// A token provider that never refreshes.
private struct FixedTokens: TokenProvider {
    func currentCredential() async throws -> Credential { Credential(token: "t") }
    func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: "t") }
}
