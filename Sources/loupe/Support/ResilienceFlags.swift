import ArgumentParser
import Foundation
import Loupe
import LoupeAsyncHTTPClient

/// `loupe send`'s resilience flags, turned into the same middleware an app would use.
struct ResilienceFlags: ParsableArguments {
    // Numbers parse through the shared argument types, which refuse non-finite and out-of-range values with one
    // line; `.unconditional` lets a negative value reach them instead of reading as an unknown option.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Retry failed attempts up to N times, 0 to 20 (default: 0; idempotent methods, POST only with an Idempotency-Key).",
        valueName: "N"), transform: CountArgument.parser(in: 0...20))
    var retries: CountArgument = 0

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Timeout of each attempt, in seconds (0.001 to 86400).", valueName: "SECONDS"),
        transform: DurationArgument.seconds)
    var timeout: DurationArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "One deadline across all attempts, in seconds (0.001 to 86400).", valueName: "SECONDS"),
        transform: DurationArgument.seconds)
    var deadline: DurationArgument?

    @Option(help: "Send 'Authorization: Bearer TOKEN'.")
    var bearer: String?

    @Option(help: "Send HTTP Basic credentials, USER:PASS.")
    var basic: String?

    @Option(name: .customLong("pin-cert"), help: "Trust only this certificate (PEM/DER file; repeatable): fails closed on mismatch.")
    var pinCert: [String] = []

    @Flag(help: "Route attempts through a circuit breaker (keyed per host).")
    var breaker = false

    @Option(name: .customLong("breaker-threshold"), parsing: .unconditional, help: ArgumentHelp(
        "Failure rate (%) that opens the breaker, 0.01 to 100 (default: 50).", valueName: "PERCENT"),
        transform: PercentArgument.parse)
    var breakerThreshold = PercentArgument(50)

    @Option(name: .customLong("breaker-min-calls"), parsing: .unconditional, help: ArgumentHelp(
        "Calls in the window before the failure rate counts, 1 to 10000 (default: 2).", valueName: "N"),
        transform: CountArgument.parser(in: 1...10_000))
    var breakerMinCalls: CountArgument = 2

    @Option(name: .customLong("breaker-wait"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds the breaker stays open before a probe, 0.001 to 86400 (default: 5).", valueName: "SECONDS"),
        transform: DurationArgument.seconds)
    var breakerWait = DurationArgument(seconds: 5)

    @Option(name: .customLong("max-decompression-ratio"), parsing: .unconditional, help: ArgumentHelp(
        "Refuse a gzip or deflate body that inflates past N times its compressed size once past its first 1 MiB, "
            + "1 to 1000000, 0 for no limit (default: \(DecompressionLimit.standardRatio)).", valueName: "N"),
        transform: CountArgument.parser(in: 0...1_000_000))
    var maxDecompressionRatio = CountArgument(DecompressionLimit.standardRatio)

    func validate() throws {
        if let basic, !basic.contains(":") { throw ValidationError("--basic takes USER:PASS") }
    }

    var attemptTimeout: Duration? { timeout?.duration }

    /// The statuses the retry middleware may retry: none without --retries.
    var retriedStatuses: Set<Int> { retries.value > 0 ? RetryPolicy.defaultRetryableStatuses : [] }

    /// The limit `--max-decompression-ratio` sets.
    var decompression: DecompressionLimit {
        maxDecompressionRatio.value == 0 ? .unlimited : DecompressionLimit(ratio: maxDecompressionRatio.value)
    }

    func makeTransport() throws -> AsyncHTTPClientTransport {
        var options = AsyncHTTPClientTransport.Options()
        options.raiseDecompressionLimit = "--max-decompression-ratio N (0: no limit)"
        guard !pinCert.isEmpty else {
            // The shared client when the limit is its own: no client of our own to start and shut down.
            guard decompression != AsyncHTTPClientTransport.sharedDecompression else { return AsyncHTTPClientTransport(options: options) }
            return AsyncHTTPClientTransport(decompression: decompression, options: options)
        }
        do {
            let pins = try pinCert.flatMap { path in
                // Checked first: a FIFO or device given as a certificate would otherwise be read forever.
                let file = try InputFile.regular(StoreAccess.expandTilde(path), role: "--pin-cert")
                return try CertificatePin.certificates(contentsOf: URL(fileURLWithPath: file))
            }
            return try AsyncHTTPClientTransport(
                pinning: PinningPolicy(pins: pins), configuration: AsyncHTTPClientTransport.configuration(decompression: decompression),
                options: options)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure.badInput("cannot use --pin-cert: \(error)")
        }
    }

    /// Outermost first: retry wraps auth (fresh credentials per attempt) and the breaker (counts every attempt).
    func makeMiddlewares() -> [any ClientMiddleware] {
        var chain: [any ClientMiddleware] = []
        // A deadline alone still needs the retry middleware: it is what enforces the deadline on the single attempt.
        if retries.value > 0 || deadline != nil {
            chain.append(RetryMiddleware(policy: RetryPolicy(maxAttempts: retries.value + 1), deadline: deadline?.duration))
        }
        if let basic, let colon = basic.firstIndex(of: ":") {
            chain.append(BasicAuthMiddleware(username: String(basic[..<colon]), password: String(basic[basic.index(after: colon)...])))
        }
        if let bearer { chain.append(AuthenticationMiddleware(StaticTokenAuthenticator(token: bearer))) }
        if breaker {
            var configuration = CircuitBreakerConfiguration()
            configuration.failureRateThreshold = breakerThreshold.value
            configuration.minimumNumberOfCalls = breakerMinCalls.value
            configuration.waitDurationInOpen = breakerWait.duration
            chain.append(CircuitBreakerMiddleware(configuration: configuration))
        }
        return chain
    }
}
