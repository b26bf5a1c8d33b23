import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import Testing

/// A request whose body is in memory goes through AsyncHTTPClient's delegate API, collected on the event loop.
@Suite struct CollectedResponseTests {
    @Test func aBufferedRequestRecordsWhenItWasSentBetweenItsStartAndItsFirstByte() async throws {
        try await withDemoServer { baseURL in
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            let created = try await client.response(DemoEndpoints.CreateOrder(order: .init(item: "lens", quantity: 2)))
            let timings = try #require(created.attempts.first?.timings)
            let sent = try #require(timings.requestSent)
            let firstByte = try #require(timings.firstByte)
            let end = try #require(timings.end)
            #expect(timings.start <= sent && sent <= firstByte && firstByte <= end)
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
