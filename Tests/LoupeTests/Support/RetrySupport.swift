// Fixtures for the retry tests: a client on a manual clock with a fixed wall-clock time, and fixed random sources.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

enum RetryFixture {
    /// Tue, 14 Nov 2023 22:13:20 GMT: a whole second, so HTTP-date differences are exact.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let url = URL(string: "https://api.example.test/items")!

    /// Random sources that always draw the top, bottom or middle of the range: jitter becomes a formula.
    static let top: @Sendable (ClosedRange<Double>) -> Double = { $0.upperBound }
    static let bottom: @Sendable (ClosedRange<Double>) -> Double = { $0.lowerBound }
    static let middle: @Sendable (ClosedRange<Double>) -> Double = { $0.lowerBound + ($0.upperBound - $0.lowerBound) / 2 }

    /// A policy with a constant delay and no jitter, so every wait is known in advance.
    static func constant(
        _ delay: Duration = .milliseconds(100), attempts: Int = 3,
        decide: (@Sendable (RetryContext) -> RetryDecision?)? = nil
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, backoff: .constant(delay), jitter: .none, decide: decide)
    }

    static func client(
        _ transport: any ClientTransport, middlewares: [any ClientMiddleware], clock: ManualClock,
        observer: any ClientObserver = NoOpClientObserver(), timeout: Duration? = nil
    ) -> Client {
        var configuration = ClientConfiguration()
        configuration.clock = clock
        configuration.now = { now }
        configuration.timeout = timeout
        return Client(baseURL: URL(string: "https://api.example.test")!, transport: transport, middlewares: middlewares,
                      observer: observer, configuration: configuration)
    }

    static func request(_ method: HTTPRequest.Method = .get, path: String = "/items", headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: "https://api.example.test\(path)")!, headerFields: headers)
    }

    /// The annotations each attempt started with, in order.
    static func annotations(_ observer: InMemoryClientObserver) -> [AttemptAnnotations] {
        observer.notifications.compactMap { if case .attemptStarted(let started) = $0 { started.annotations } else { nil } }
    }

    static func response(_ status: Int, headers: HTTPFields = [:]) -> RawResponse {
        RawResponse(status: .init(code: status), headerFields: headers)
    }
}
