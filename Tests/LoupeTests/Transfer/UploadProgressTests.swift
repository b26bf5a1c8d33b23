import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct UploadProgressTests {
    static let upload = HTTPRequest(method: .put, url: URL(string: "https://api.example.com/v1/blob")!)

    @Test func progressRisesChunkByChunkToTheTotal() async throws {
        let total = 1_000_000
        let seen = Recorded<ReadBody>()
        let client = makeComponentsClient(MockTransport { _, body, _ in
            seen.append(try await ReadBody.read(body))
            return RawResponse(status: .created)
        })
        let task = client.upload(Self.upload, body: .data(Data(count: total)), chunkSize: 64 * 1024, progressBuffering: .unbounded)
        var steps: [TransferProgress] = []
        for await step in task.progress { steps.append(step) }   // ends when the upload does
        let response = try await task.value

        #expect(response.status == .created)
        #expect(steps.first == TransferProgress(completedBytes: 0, totalBytes: Int64(total)))
        #expect(steps.last == TransferProgress(completedBytes: Int64(total), totalBytes: Int64(total)))
        #expect(steps.last?.fractionCompleted == 1)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1.completedBytes > $0.completedBytes })
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1.completedBytes - $0.completedBytes <= 64 * 1024 })
        #expect(steps.count == 1 + (total + 65535) / 65536)
        let read = try #require(seen.values.first)
        #expect(read.bytes.count == total && read.largestChunk == 64 * 1024)
    }

    @Test func progressCountsWhatTheTransportTookNotWhatWasReadAhead() async throws {
        let client = makeComponentsClient(MockTransport { _, body, _ in
            var iterator = try #require(try body?.makeStream()).makeAsyncIterator()
            _ = try await iterator.next()
            _ = try await iterator.next()
            return RawResponse(status: .requestTimeout)
        })
        let task = client.upload(Self.upload, body: .data(Data(count: 10_000)), chunkSize: 1000, progressBuffering: .unbounded)
        var steps: [Int64] = []
        for await step in task.progress { steps.append(step.completedBytes) }
        #expect(try await task.value.status == .requestTimeout)
        #expect(steps == [0, 1000, 2000])
    }

    @Test func aStreamedBodyKeepsItsLengthAndReplayability() async throws {
        let base = RequestBody.stream(length: 5, replayable: false) {
            AsyncThrowingStream { continuation in
                continuation.yield(Data("he".utf8))
                continuation.yield(Data("llo".utf8))
                continuation.finish()
            }
        }
        let reporting = ProgressReportingBody(base, chunkSize: 2, bufferingPolicy: .unbounded)
        #expect(reporting.body.length == 5)
        #expect(!reporting.body.isReplayable)
        let read = try await ReadBody.read(reporting.body)
        reporting.finish()
        #expect(read.chunkSizes == [2, 2, 1])
        #expect(read.bytes == Data("hello".utf8))
        var steps: [Int64] = []
        for await step in reporting.progress { steps.append(step.completedBytes) }
        #expect(steps == [0, 2, 4, 5])
    }

    @Test func theProgressStreamEndsWhenTheUploadFails() async throws {
        let client = makeComponentsClient(MockTransport { _, _, _ in throw TransportError(.connectionReset, "reset") })
        let task = client.upload(Self.upload, body: .data(Data(count: 10)))
        for await _ in task.progress {}
        let error = await #expect(throws: ClientError.self) { try await task.value }
        #expect(error?.stage == .transport)
    }
}
