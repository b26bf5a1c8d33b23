import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import Testing

/// `AsyncHTTPClientTransport.send`: one timeout over the whole attempt, kept by a timer on an event loop that
/// cancels the attempt's own task.
@Suite struct AttemptDeadlineTests {
    @Test func aTimedOutAttemptIsRetriedWithinTheSameExchange() async throws {
        try await withDemoServer { baseURL in
            let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, backoff: .none, jitter: .none))
            let observer = InMemoryClientObserver()
            let client = Client(
                baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [retry], observer: observer)
            var slow = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("slow"))
            slow.path = "/slow?ms=3000"
            let error = await #expect(throws: ClientError.self) {
                try await client.execute(slow, options: RequestOptions(timeout: .milliseconds(150)))
            }
            // Both attempts ran and timed out: the first one's timer did not cancel the exchange.
            let attempts = observer.finishedAttempts.map(\.record)
            #expect(error?.stage == .transport)
            #expect(attempts.count == 2)
            #expect(attempts.allSatisfy { $0.error?.contains("timeout") == true })
        }
    }

    @Test func aBodyPastTheLimitFailsNamingItAndKeepsWhatCame() async throws {
        try await withDemoServer { baseURL in
            let transport = AsyncHTTPClientTransport(options: .init(maxResponseBytes: 16))
            let client = Client(baseURL: baseURL, transport: transport)
            let error = await #expect(throws: ClientError.self) { try await client.send(DemoEndpoints.ListUsers()) }
            let failure = try #require(error?.underlyingError as? TransportError)
            #expect(error?.stage == .transport)
            #expect(failure.message.contains("larger than 16 bytes"))
            #expect(failure.message.contains("AsyncHTTPClientTransport.Options(maxResponseBytes:)"))
            let partial = try #require(failure.partialResponse)
            #expect(partial.status.code == 200)
            #expect(partial.body.count <= 16)
        }
    }

    @Test func aStreamedRequestBodyStillReachesTheServer() async throws {
        try await withDemoServer { baseURL in
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            let json = Data(#"{"item":"lens","quantity":3}"#.utf8)
            let body = RequestBody.stream(length: Int64(json.count), replayable: true) {
                AsyncThrowingStream { continuation in
                    continuation.yield(json.prefix(10))
                    continuation.yield(json.dropFirst(10))
                    continuation.finish()
                }
            }
            var request = HTTPRequest(method: .post, url: baseURL.appendingPathComponent("orders"))
            request.headerFields[.contentType] = "application/json"
            let response = try await client.execute(request, body: body)
            let echoed = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            #expect((echoed?["received"] as? [String: Any])?["quantity"] as? Int == 3)
            #expect(response.attempts.first?.timings.requestSent != nil)
        }
    }
}
