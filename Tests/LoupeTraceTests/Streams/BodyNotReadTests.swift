import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A streamed body the app dropped before its end is recorded as not read, in a real SQLite file, not as a whole
/// (or empty) successful body (issue 43, item 9).
@Suite struct BodyNotReadTests {
    /// Streams three chunks; the app reads `reads` of them, then drops the body. Returns the stored exchange.
    func record(reads: Int) async throws -> TraceExchange {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let inspector = NetworkTraceInspector(store: store)
        let id = UUID()
        let client = Fixture.threeChunkClient(observer: inspector, id: id)
        do {
            let response = try await client.stream(Fixture.request("https://api.example.test/report"))
            var iterator = response.body.makeAsyncIterator()
            for _ in 0..<reads { _ = try await iterator.next() }
        }
        await inspector.shutdown()
        try store.close()
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        defer { try? reader.close() }
        return try #require(try reader.exchange(id: id))
    }

    @Test func aBodyDroppedAfterOneChunkIsRecordedAsNotRead() async throws {
        let trace = try await record(reads: 1)
        #expect(trace.status == 200)
        #expect(trace.responseBody?.data == Data("first ".utf8))
        let event = try #require(trace.events.first { $0.kind == .bodyNotRead })
        #expect(event.attributes["readBytes"] == "6")
        #expect(event.message.hasPrefix("body not read by the app"))
    }

    @Test func aBodyDroppedUnreadIsNotAnEmptySuccessfulBody() async throws {
        let trace = try await record(reads: 0)
        #expect(trace.events.contains { $0.kind == .bodyNotRead && $0.attributes["readBytes"] == "0" })
    }

    @Test func aBodyReadToItsEndSaysNothingMore() async throws {
        let trace = try await record(reads: 4)
        #expect(trace.responseBody?.data == Data("first second third".utf8))
        #expect(!trace.events.contains { $0.kind == .bodyNotRead })
    }
}
