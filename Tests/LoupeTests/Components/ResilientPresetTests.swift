import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// `Client.resilient` end to end on an in-process transport: the documented order shows in what each attempt
/// carries and what is recorded about it.
@Suite struct ResilientPresetTests {
    struct Provider: TokenProvider {
        func currentCredential() async throws -> Credential { Credential(token: "t0k3n") }
        func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: "t0k3n-2") }
    }

    @Test func retriedAttemptsEachCarryTheCredentialAndRecordWhyTheyHappened() async throws {
        var options = ResilienceOptions()
        options.retry = RetryPolicy(maxAttempts: 3, backoff: .none)
        options.tokenProvider = Provider()
        (options.metrics, options.tracing) = (false, false)
        let seen = Recorded<HTTPRequest>()
        let observer = InMemoryClientObserver()
        let client = Client.resilient(
            baseURL: URL(string: "https://api.example.com/v1")!, transport: scriptedTransport([503, 503, 200], seen: seen),
            observer: observer, options: options)

        let response = try await client.response(Ping(), metadata: RequestMetadata(priority: .high))

        #expect(response.status == .ok)
        #expect(response.attempts.map(\.status) == [503, 503, 200])
        // Auth sits inside retry: every attempt went out with the credential.
        #expect(seen.values.map { $0.headerFields[.authorization] } == Array(repeating: "Bearer t0k3n", count: 3))
        let annotations = observer.startedAnnotations
        #expect(annotations.map(\.retryReason) == [nil, "503", "503"])
        #expect(annotations.map(\.circuitState) == ["closed", "closed", "closed"])
        #expect(annotations.allSatisfy { $0.extra["priority"] == "high" && $0.extra["cache"] == "miss" })
        #expect(annotations.allSatisfy { $0.extra["circuit.key"] == "api.example.com" && $0.extra["auth.generation"] == "1" })
    }

    @Test func everyPartCanBeSwitchedOff() {
        var options = ResilienceOptions()
        (options.retry, options.circuitBreaker, options.maxConcurrent, options.maxConcurrentPerHost) = (nil, nil, nil, nil)
        (options.deduplicate, options.conditionalGET, options.metrics, options.tracing) = (false, false, false, false)
        options.annotatesMetadata = false
        #expect(options.middlewares(clock: ContinuousClock()).isEmpty)
        #expect(ResilienceOptions().middlewares(clock: ContinuousClock()).count == 8)
    }
}
