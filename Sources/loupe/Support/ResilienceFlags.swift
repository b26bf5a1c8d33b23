import ArgumentParser
import Foundation
import Loupe
import HTTPTypes
import LoupeAsyncHTTPClient

/// `loupe send`'s resilience flags, turned into the same middleware an app would use.
struct ResilienceFlags: ParsableArguments {
    @Option(help: "Retry failed attempts up to N times (idempotent methods; POST only with an Idempotency-Key header).")
    var retries: Int = 0

    @Option(help: "Timeout of each attempt, in seconds.")
    var timeout: Double?

    @Option(help: "One deadline across all attempts, in seconds.")
    var deadline: Double?

    @Option(help: "Send 'Authorization: Bearer TOKEN'.")
    var bearer: String?

    @Option(help: "Send HTTP Basic credentials, USER:PASS.")
    var basic: String?

    @Option(name: .customLong("pin-cert"), help: "Trust only this certificate (PEM/DER file; repeatable): fails closed on mismatch.")
    var pinCert: [String] = []

    @Flag(help: "Route attempts through a circuit breaker (keyed per host).")
    var breaker = false

    @Option(name: .customLong("breaker-threshold"), help: "Failure rate (%) that opens the breaker.")
    var breakerThreshold: Double = 50

    @Option(name: .customLong("breaker-min-calls"), help: "Calls in the window before the failure rate counts.")
    var breakerMinCalls: Int = 2

    @Option(name: .customLong("breaker-wait"), help: "Seconds the breaker stays open before a probe.")
    var breakerWait: Double = 5

    func validate() throws {
        guard (0...20).contains(retries) else { throw ValidationError("--retries must be 0...20") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive") }
        if let deadline, deadline <= 0 { throw ValidationError("--deadline must be positive") }
        if let basic, !basic.contains(":") { throw ValidationError("--basic takes USER:PASS") }
        guard (0...100).contains(breakerThreshold) else { throw ValidationError("--breaker-threshold must be 0...100") }
        guard breakerMinCalls >= 1, breakerWait > 0 else { throw ValidationError("--breaker-min-calls and --breaker-wait must be positive") }
    }

    var attemptTimeout: Duration? { timeout.map { .milliseconds(Int64($0 * 1000)) } }

    func makeTransport() throws -> AsyncHTTPClientTransport {
        guard !pinCert.isEmpty else { return AsyncHTTPClientTransport() }
        do {
            let pins = try pinCert.flatMap { try CertificatePin.certificates(contentsOf: URL(fileURLWithPath: StoreAccess.expandTilde($0))) }
            return try AsyncHTTPClientTransport(pinning: PinningPolicy(pins: pins))
        } catch {
            throw CommandFailure.badInput("cannot use --pin-cert: \(error)")
        }
    }

    /// Outermost first: retry wraps auth (fresh credentials per attempt) and the breaker (counts every attempt).
    func makeMiddlewares() -> [any ClientMiddleware] {
        var chain: [any ClientMiddleware] = []
        if retries > 0 {
            chain.append(RetryMiddleware(
                policy: RetryPolicy(maxAttempts: retries + 1), deadline: deadline.map { .milliseconds(Int64($0 * 1000)) }))
        }
        if let basic, let colon = basic.firstIndex(of: ":") {
            chain.append(BasicAuthMiddleware(username: String(basic[..<colon]), password: String(basic[basic.index(after: colon)...])))
        }
        if let bearer { chain.append(StaticBearerMiddleware(token: bearer)) }
        if breaker {
            var configuration = CircuitBreakerConfiguration()
            configuration.failureRateThreshold = breakerThreshold
            configuration.minimumNumberOfCalls = breakerMinCalls
            configuration.waitDurationInOpen = .milliseconds(Int64(breakerWait * 1000))
            chain.append(CircuitBreakerMiddleware(configuration: configuration))
        }
        return chain
    }
}

/// A fixed bearer token (the CLI has nothing to refresh it with).
struct StaticBearerMiddleware: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, context)
    }
}
