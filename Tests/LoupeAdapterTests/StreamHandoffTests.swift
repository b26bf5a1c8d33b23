import Foundation
import HTTPTypes
import Loupe
import LoupeOpenAPI
import LoupeTesting
import OpenAPIRuntime
import Testing

/// `Client.stream` and the OpenAPI adapters' body handling, in-process: no server, no sleeping.
@Suite struct StreamHandoffTests {
    static let request = HTTPRequest(method: .get, scheme: "http", authority: "example.test", path: "/big")

    /// A transport streaming `count` bytes of LoupeTesting's pattern in 1 KiB chunks with status `status`.
    static func streaming(_ count: Int, status: HTTPResponse.Status = .ok) -> StreamingMockTransport {
        StreamingMockTransport { _, _, _ in
            StreamedResponse(head: HTTPResponse(status: status),
                             body: StreamingMockTransport.patternBody(byteCount: count, chunkSize: 1024))
        }
    }

    @Test func aStreamedBodyIsRecordedOnceReadWithItsFirstBytesAndWholeSize() async throws {
        let observer = InMemoryClientObserver()
        let client = Client(baseURL: URL(string: "http://example.test")!, transport: Self.streaming(10_000), observer: observer)
        let response = try await client.stream(Self.request, streaming: ResponseStreaming(keptPrefix: 100))
        #expect(observer.finishedExchanges.isEmpty, "not finished before the body is read")
        var total = 0
        for try await chunk in response.body { total += chunk.count }
        #expect(total == 10_000)
        let finished = try #require(observer.finishedExchanges.first)
        #expect(observer.finishedExchanges.count == 1)
        #expect(finished.responseBody?.count == 100)
        #expect(finished.responseBodySize == 10_000)
        #expect(finished.responseBody == (try await StreamingMockTransport.patternData(byteCount: 100)))
    }

    @Test func aBodyDroppedUnreadStillFinishesItsExchange() async throws {
        let observer = InMemoryClientObserver()
        let client = Client(baseURL: URL(string: "http://example.test")!, transport: Self.streaming(5_000), observer: observer)
        do {
            let response = try await client.stream(Self.request)
            var iterator = response.body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(observer.finishedExchanges.count == 1)
        #expect(observer.finishedExchanges.first?.responseBody?.count == 1024)
    }

    @Test func aStatusThatDoesNotStreamIsCollectedSoRetriesStillWork() async throws {
        let observer = InMemoryClientObserver()
        let client = Client(baseURL: URL(string: "http://example.test")!, transport: Self.streaming(300, status: .serviceUnavailable),
                            observer: observer)
        let response = try await client.stream(Self.request)
        #expect(response.head.status == .serviceUnavailable)
        #expect(observer.finishedExchanges.count == 1, "finished at once: its body was collected")
        var total = 0
        for try await chunk in response.body { total += chunk.count }
        #expect(total == 300)
        #expect(observer.finishedExchanges.count == 1)
    }

    @Test func aReaderCancelledMidBodyStillFinishesTheExchange() async throws {
        let observer = InMemoryClientObserver()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(Data(repeating: 1, count: 10))
        let transport = StreamingMockTransport { _, _, _ in StreamedResponse(head: HTTPResponse(status: .ok), body: stream) }
        let client = Client(baseURL: URL(string: "http://example.test")!, transport: transport, observer: observer)
        let response = try await client.stream(Self.request)
        // The body never ends on its own: only cancelling the reader ends it.
        let reader = Task { for try await _ in response.body {} }
        reader.cancel()
        _ = await reader.result
        #expect(observer.finishedExchanges.count == 1)
        continuation.finish()
    }

    @Test func theMiddlewareTeesABodyOfUnknownLengthAndRecordsItAtTheEnd() async throws {
        let observer = InMemoryClientObserver()
        let middleware = LoupeRecordingMiddleware(observer: observer, bodyCap: 8)
        let chunks = AsyncStream<HTTPBody.ByteChunk> { continuation in
            continuation.yield([1, 2, 3, 4, 5][...])
            continuation.yield([6, 7, 8, 9, 10][...])
            continuation.finish()
        }
        let (response, body) = try await middleware.intercept(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/things"), body: nil,
            baseURL: URL(string: "https://api.example.test/v1")!, operationID: "listThings"
        ) { _, _, _ in
            (HTTPResponse(status: .ok), HTTPBody(chunks, length: .unknown))
        }
        #expect(response.status == .ok)
        #expect(observer.finishedExchanges.isEmpty)
        let bytes = try await [UInt8](collecting: try #require(body), upTo: 100)
        #expect(bytes == Array(1...10))
        let started = try #require(observer.notifications.compactMap { if case .exchangeStarted(let s) = $0 { s } else { nil } }.first)
        #expect(started.operation == "listThings")
        #expect(started.adapter == "openapi-middleware")
        #expect(started.request.authority == "api.example.test")
        #expect(started.request.path == "/v1/things")
        let finished = try #require(observer.finishedExchanges.first)
        #expect(finished.responseBody == Data([1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(finished.responseBodySize == 10)
        #expect(finished.outcome == .success)
    }

    @Test func theMiddlewareRecordsAFailedCallAsATransportError() async throws {
        struct Broken: Error {}
        let observer = InMemoryClientObserver()
        let middleware = LoupeRecordingMiddleware(observer: observer)
        await #expect(throws: Broken.self) {
            _ = try await middleware.intercept(
                HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/orders"), body: HTTPBody("{\"a\":1}"),
                baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "createOrder"
            ) { _, _, _ in throw Broken() }
        }
        let finished = try #require(observer.finishedExchanges.first)
        #expect(finished.outcome == .transportError)
        let started = try #require(observer.notifications.compactMap { if case .exchangeStarted(let s) = $0 { s } else { nil } }.first)
        #expect(started.requestBody == Data("{\"a\":1}".utf8))
    }
}
