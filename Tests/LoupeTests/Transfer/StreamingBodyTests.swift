import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

/// A sink that keeps what it is given, in calls: what a test checks the client did to it.
final class RecordingSink: ResponseBodySink {
    enum Call: Equatable {
        case begin(Int)
        case write(Int)
        case finish(Int64)
    }

    let canRestart: Bool
    private let state = Mutex<(calls: [Call], bytes: Data)>(([], Data()))

    init(canRestart: Bool) { self.canRestart = canRestart }

    var calls: [Call] { state.withLock { $0.calls } }
    var bytes: Data { state.withLock { $0.bytes } }
    var begins: Int { calls.filter { if case .begin = $0 { true } else { false } }.count }

    func begin(_ head: HTTPResponse, httpVersion: String?) throws {
        state.withLock { $0.calls.append(.begin(head.status.code)) }
    }

    func write(_ chunk: Data) throws {
        state.withLock {
            $0.calls.append(.write(chunk.count))
            $0.bytes.append(chunk)
        }
    }

    func finish(byteCount: Int64) throws {
        state.withLock { $0.calls.append(.finish(byteCount)) }
    }
}

/// How many times a transport was called.
final class CallCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }

    /// The number of calls before this one.
    func next() -> Int {
        count.withLock { count in
            defer { count += 1 }
            return count
        }
    }
}

@Suite struct StreamingBodyTests {
    static let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/big.bin")!)

    /// Answers from `script` in order, one entry per attempt, counting the attempts.
    static func scripted(_ script: [@Sendable () throws -> StreamedResponse]) -> (StreamingMockTransport, CallCount) {
        let calls = CallCount()
        let transport = StreamingMockTransport { _, _, _ in
            try script[min(calls.next(), script.count - 1)]()
        }
        return (transport, calls)
    }

    static func pattern(_ size: Int, status: HTTPResponse.Status = .ok, length: Bool = true) -> StreamedResponse {
        StreamedResponse(
            head: HTTPResponse(status: status, headerFields: length ? [.contentLength: "\(size)"] : [:]),
            body: StreamingMockTransport.patternBody(byteCount: size))
    }

    /// `count` bytes, then the connection breaks.
    static func breaking(after count: Int) -> StreamedResponse {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(Data(repeating: 7, count: count))
        continuation.finish(throwing: TransportError(.connectionReset, "peer closed"))
        return StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentLength: "1000000"]), body: body)
    }

    @Test func aLargeBodyReachesTheSinkWhileTheObserverGetsThePrefixAndTheTrueSize() async throws {
        let size = 5 * 1024 * 1024 + 3
        let observer = InMemoryClientObserver()
        let sink = RecordingSink(canRestart: false)
        let client = makeComponentsClient(Self.scripted([{ Self.pattern(size) }]).0, observer: observer)

        let response = try await client.execute(Self.request, streamingBodyTo: sink, streaming: ResponseStreaming(keptPrefix: 1000))

        #expect(response.value == Int64(size) && response.status == .ok)
        #expect(sink.bytes == (try await StreamingMockTransport.patternData(byteCount: size)))
        #expect(sink.calls.first == .begin(200) && sink.calls.last == .finish(Int64(size)) && sink.begins == 1)
        #expect(response.body == sink.bytes.prefix(1000))
        let finished = try #require(observer.finishedExchanges.first)
        #expect(finished.outcome == .success && finished.responseBody?.count == 1000 && finished.responseBodySize == size)
        #expect(observer.finishedAttempts.first?.responseBodySize == size)
    }

    @Test func aBodyThatBreaksAfterOutputBeganIsReportedNotRetried() async throws {
        let sink = RecordingSink(canRestart: false)
        let observer = InMemoryClientObserver()
        let (transport, calls) = Self.scripted([{ Self.breaking(after: 3000) }, { Self.pattern(10) }])
        let client = makeComponentsClient(
            transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero))], observer: observer)

        let error = await #expect(throws: ClientError.self) {
            try await client.execute(Self.request, streamingBodyTo: sink)
        }
        let failure = try #require(error?.underlyingError as? TransportError)
        #expect(failure.kind == .deliveryInterrupted && failure.message.contains("connection reset"))
        #expect(failure.partialResponse?.bodySize == 3000)
        #expect(calls.value == 1, "a retry would write the body a second time")
        #expect(sink.calls == [.begin(200), .write(3000)])
        #expect(observer.finishedExchanges.first?.outcome == .transportError)
        #expect(observer.finishedExchanges.first?.responseBodySize == 3000)
        #expect(observer.events.contains { $0.kind == .incompleteResponse && $0.attributes["receivedBytes"] == "3000" })
    }

    @Test func aSinkThatCanRestartIsRewrittenByTheRetry() async throws {
        let sink = RecordingSink(canRestart: true)
        let (transport, calls) = Self.scripted([{ Self.breaking(after: 3000) }, { Self.pattern(10) }])
        let client = makeComponentsClient(transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero))])

        let response = try await client.execute(Self.request, streamingBodyTo: sink)

        #expect(response.value == 10 && calls.value == 2)
        #expect(sink.calls == [.begin(200), .write(3000), .begin(200), .write(10), .finish(10)])
    }

    @Test func aRetriedStatusIsHeldBackAndOnlyTheFinalResponseIsWritten() async throws {
        let sink = RecordingSink(canRestart: false)
        let (transport, calls) = Self.scripted([{ Self.pattern(500, status: .serviceUnavailable) }, { Self.pattern(20) }])
        let client = makeComponentsClient(transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero))])
        let streaming = ResponseStreaming(streams: { !RetryPolicy.defaultRetryableStatuses.contains($0.code) })

        let response = try await client.execute(Self.request, streamingBodyTo: sink, streaming: streaming)

        #expect(response.value == 20 && calls.value == 2)
        #expect(sink.calls == [.begin(200), .write(20), .finish(20)])
    }

    @Test func aFinalHeldBackResponseIsWrittenToTheSinkOnce() async throws {
        let sink = RecordingSink(canRestart: false)
        let (transport, calls) = Self.scripted([{ Self.pattern(500, status: .serviceUnavailable) }])
        let client = makeComponentsClient(transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero, attempts: 2))])
        let streaming = ResponseStreaming(streams: { !RetryPolicy.defaultRetryableStatuses.contains($0.code) })

        let response = try await client.execute(Self.request, streamingBodyTo: sink, streaming: streaming)

        #expect(response.status == .serviceUnavailable && response.value == 500 && calls.value == 2)
        #expect(sink.calls == [.begin(503), .write(500), .finish(500)])
        #expect(sink.bytes == (try await StreamingMockTransport.patternData(byteCount: 500)))
    }

    @Test func aConnectFailureBeforeTheHeadIsRetriedAsUsual() async throws {
        let sink = RecordingSink(canRestart: false)
        let (transport, calls) = Self.scripted([
            { throw TransportError(.connectFailed, "refused") }, { Self.pattern(64) },
        ])
        let client = makeComponentsClient(transport, middlewares: [RetryMiddleware(policy: RetryFixture.constant(.zero))])

        let response = try await client.execute(Self.request, streamingBodyTo: sink)

        #expect(response.value == 64 && calls.value == 2 && sink.begins == 1)
    }

    @Test func aDeclaredLengthOverTheLimitFailsBeforeAnyByteIsWritten() async throws {
        let sink = RecordingSink(canRestart: false)
        let client = makeComponentsClient(Self.scripted([{ Self.pattern(4096) }]).0)

        let error = await #expect(throws: ClientError.self) {
            try await client.execute(Self.request, streamingBodyTo: sink, streaming: ResponseStreaming(maxBodyBytes: 4095))
        }
        #expect((error?.underlyingError as? TransportError)?.message.contains("limit of 4095 bytes") == true)
        #expect(sink.calls.isEmpty)
        // At the limit exactly, it passes.
        let response = try await makeComponentsClient(Self.scripted([{ Self.pattern(4096) }]).0)
            .execute(Self.request, streamingBodyTo: sink, streaming: ResponseStreaming(maxBodyBytes: 4096))
        #expect(response.value == 4096)
    }

    @Test func anUndeclaredBodyOverTheLimitStopsAtTheLimit() async throws {
        let sink = RecordingSink(canRestart: false)
        let client = makeComponentsClient(Self.scripted([{ Self.pattern(200_000, length: false) }]).0)

        let error = await #expect(throws: ClientError.self) {
            try await client.execute(Self.request, streamingBodyTo: sink, streaming: ResponseStreaming(maxBodyBytes: 100_000))
        }
        let failure = try #require(error?.underlyingError as? TransportError)
        #expect(failure.kind == .deliveryInterrupted && failure.message.contains("limit of 100000 bytes"))
        #expect(sink.bytes.count <= 100_000 && sink.bytes.count > 0)
    }

    @Test func aTransportThatCannotStreamStillFillsTheSink() async throws {
        let sink = RecordingSink(canRestart: false)
        let client = makeComponentsClient(CannedTransport(RawResponse(status: .ok, body: Data("hello".utf8))))

        let response = try await client.execute(Self.request, streamingBodyTo: sink)

        #expect(response.value == 5 && sink.bytes == Data("hello".utf8))
        #expect(sink.calls == [.begin(200), .write(5), .finish(5)])
    }
}
