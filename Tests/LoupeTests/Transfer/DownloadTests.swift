import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

@Suite struct DownloadTests {
    static let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/archive.bin")!)

    /// A streaming transport that serves `byteCount` pattern bytes with a Content-Length.
    static func serving(_ byteCount: Int, chunkSize: Int = 64 * 1024, status: HTTPResponse.Status = .ok) -> StreamingMockTransport {
        StreamingMockTransport { _, _, _ in
            StreamedResponse(
                head: HTTPResponse(status: status, headerFields: [.contentLength: "\(byteCount)"]),
                body: StreamingMockTransport.patternBody(byteCount: byteCount, chunkSize: chunkSize))
        }
    }

    @Test func aMultiMegabyteBodyIsWrittenToTheFileWithProgressAndRecorded() async throws {
        try await withScratchDirectory { directory in
            let size = 6 * 1024 * 1024 + 17
            let destination = directory.appendingPathComponent("archive.bin")
            let observer = InMemoryClientObserver()
            let client = makeComponentsClient(Self.serving(size), middlewares: [RequestMetadataMiddleware()], observer: observer)

            let download = client.download(Self.request, to: destination, progressBuffering: .unbounded)
            var steps: [TransferProgress] = []
            for await step in download.progress { steps.append(step) }
            let response = try await download.value

            #expect(response.status == .ok && response.byteCount == Int64(size) && response.fileURL == destination)
            let written = try Data(contentsOf: destination)
            #expect(written == (try await StreamingMockTransport.patternData(byteCount: size)))
            #expect(try contents(of: directory) == ["archive.bin"])
            #expect(steps.first?.completedBytes == 0)
            #expect(steps.last == TransferProgress(completedBytes: Int64(size), totalBytes: Int64(size)))
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $1.completedBytes > $0.completedBytes })

            // Recorded as one exchange with one attempt; bodies empty, the size in the download event.
            let attempts = observer.finishedAttempts
            #expect(attempts.count == 1 && attempts.first?.responseBody?.isEmpty == true)
            #expect(attempts.first?.response?.headerFields[.contentLength] == "\(size)")
            let finished = try #require(observer.finishedExchanges.first)
            #expect(finished.outcome == .success && finished.responseBody?.isEmpty == true)
            #expect(finished.exchangeID == response.exchangeID)
            let event = try #require(observer.events.first { $0.kind == .download })
            #expect(event.attributes["bytes"] == "\(size)" && event.attributes["mode"] == "streamed")
            #expect(observer.startedAnnotations.first?.extra["body"] == "streamed")
        }
    }

    @Test func cancellingMidDownloadDeletesThePartialFileAndEndsTheProgress() async throws {
        try await withScratchDirectory { directory in
            let destination = directory.appendingPathComponent("movie.mp4")
            let observer = InMemoryClientObserver()
            // Three chunks, then the server goes quiet until the reader gives up.
            let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
                let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
                for _ in 0..<3 { continuation.yield(Data(count: 1000)) }
                return StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentLength: "1000000"]), body: body)
            }, observer: observer)

            let download = client.download(Self.request, to: destination, progressBuffering: .unbounded)
            var progress = download.progress.makeAsyncIterator()
            while let step = await progress.next(), step.completedBytes < 3000 {}
            let partial = try contents(of: directory)
            #expect(partial.count == 1 && partial.first?.hasSuffix(".part") == true)

            download.cancel()
            let error = await #expect(throws: ClientError.self) { try await download.value }
            #expect(error?.stage == .cancelled)
            while await progress.next() != nil {}   // the stream has ended
            #expect(try contents(of: directory).isEmpty)
            #expect(observer.finishedExchanges.first?.outcome == .cancelled)
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheDownload() async throws {
        try await withScratchDirectory { directory in
            let started = AsyncStream.makeStream(of: Void.self)
            let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
                let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
                continuation.yield(Data(count: 10))
                started.continuation.yield()
                return StreamedResponse(head: HTTPResponse(status: .ok), body: body)
            })
            let download = client.download(Self.request, to: directory.appendingPathComponent("f"))
            let waiter = Task { try await download.value }
            for await _ in started.stream { break }
            waiter.cancel()
            await #expect(throws: ClientError.self) { try await waiter.value }
            let remaining = try contents(of: directory)
            #expect(remaining.isEmpty)
        }
    }

    @Test func aBodyShorterThanItsContentLengthFailsAndLeavesNoFile() async throws {
        try await withScratchDirectory { directory in
            let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
                StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentLength: "5000"]),
                                 body: StreamingMockTransport.patternBody(byteCount: 3000))
            })
            let error = await #expect(throws: ClientError.self) {
                try await client.download(Self.request, to: directory.appendingPathComponent("f")).value
            }
            #expect((error?.underlyingError as? TransportError)?.kind == .connectionReset)
            let remaining = try contents(of: directory)
            #expect(remaining.isEmpty)
        }
    }

    @Test func anErrorStatusKeepsItsBodyInTheErrorAndTouchesNoFile() async throws {
        try await withScratchDirectory { directory in
            let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
                StreamedResponse(head: HTTPResponse(status: .notFound), body: StreamingMockTransport.patternBody(byteCount: 300))
            })
            let error = await #expect(throws: ClientError.self) {
                try await client.download(Self.request, to: directory.appendingPathComponent("f")).value
            }
            #expect(error?.stage == .validation)
            #expect(error?.response?.body.count == 300)
            let remaining = try contents(of: directory)
            #expect(remaining.isEmpty)
        }
    }

    @Test func anExistingFileIsReplacedOnlyOnSuccess() async throws {
        try await withScratchDirectory { directory in
            let destination = directory.appendingPathComponent("data.bin")
            try Data("old".utf8).write(to: destination)
            let failing = makeComponentsClient(Self.serving(100, status: .internalServerError))
            _ = try? await failing.download(Self.request, to: destination).value
            #expect(try Data(contentsOf: destination) == Data("old".utf8))
            _ = try await makeComponentsClient(Self.serving(100)).download(Self.request, to: destination).value
            #expect(try Data(contentsOf: destination).count == 100)
            #expect(try contents(of: directory) == ["data.bin"])
        }
    }

    @Test func aTransportThatCannotStreamStillDownloads() async throws {
        try await withScratchDirectory { directory in
            let observer = InMemoryClientObserver()
            let client = makeComponentsClient(CannedTransport(RawResponse(status: .ok, body: Data("small".utf8))), observer: observer)
            let destination = directory.appendingPathComponent("small.txt")
            let response = try await client.download(Self.request, to: destination).value
            #expect(response.byteCount == 5)
            #expect(try Data(contentsOf: destination) == Data("small".utf8))
            #expect(observer.events.first { $0.kind == .download }?.attributes["mode"] == "buffered")
        }
    }

    @Test func downloadsBypassTheResponseCache() async throws {
        try await withScratchDirectory { directory in
            let store = InMemoryResponseCache()
            let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
                StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.eTag: #""v1""#]),
                                 body: StreamingMockTransport.patternBody(byteCount: 10))
            }, middlewares: [ConditionalGETMiddleware(store: store)])
            _ = try await client.download(Self.request, to: directory.appendingPathComponent("a")).value
            _ = try await client.download(Self.request, to: directory.appendingPathComponent("b")).value
            #expect(store.count == 0)
            #expect(try Data(contentsOf: directory.appendingPathComponent("b")).count == 10)
        }
    }

    @Test func anEndpointCanBeDownloaded() async throws {
        try await withScratchDirectory { directory in
            let seen = Recorded<String>()
            let client = makeComponentsClient(StreamingMockTransport { request, _, _ in
                seen.append(request.url?.absoluteString ?? "")
                return StreamedResponse(head: HTTPResponse(status: .ok), body: StreamingMockTransport.patternBody(byteCount: 70_000))
            })
            let response = try await client.download(RawBytes(), to: directory.appendingPathComponent("raw")).value
            #expect(response.byteCount == 70_000)
            #expect(seen.values == ["https://api.example.com/v1/raw"])
        }
    }
}
