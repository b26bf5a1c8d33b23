import Foundation
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// Issue 30's budgets as counts (the timings are Benchmarks/README.md's, measured on a release build): a fast
/// stream recorded with none lost below the cap, bounded past it, and the per-message cost with and without
/// recording printed for the record (`LOUPE_STREAM_BUDGET=1` prints it).
@Suite("Stream budgets", .serialized)
struct StreamBudgetTests {
    /// `count` events of `payload` bytes, 100 to a chunk, then the stream ends; later connections get 204.
    static func transport(events count: Int, payload: Int = 40) -> StreamingMockTransport {
        let calls = Mutex(0)
        let data = String(repeating: "x", count: payload)
        return StreamingMockTransport { _, _, _ in
            let first = calls.withLock { $0 += 1; return $0 == 1 }
            let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            if first {
                var chunk = ""
                for number in 0..<count {
                    chunk += "id: \(number)\ndata: \(data)\n\n"
                    if number % 100 == 99 { continuation.yield(Data(chunk.utf8)); chunk = "" }
                }
                if !chunk.isEmpty { continuation.yield(Data(chunk.utf8)) }
            }
            continuation.finish()
            return StreamedResponse(head: HTTPResponse(status: first ? .ok : .noContent,
                                                       headerFields: [.contentType: "text/event-stream"]), body: body)
        }
    }

    /// Reads the whole stream; returns the events seen and the seconds it took.
    static func read(_ client: Client) async throws -> (Int, Double) {
        let clock = ContinuousClock()
        var seen = 0
        let elapsed = try await clock.measure {
            for try await _ in client.events(HTTPRequest(method: .get, url: URL(string: "https://api.example.test/s")!),
                                             stream: EventStreamOptions(reconnectDelay: .zero)) { seen += 1 }
        }
        return (seen, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test func tenThousandEventsAreAllRecordedAndAHundredThousandStayWithinTheCap() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        for (count, kept, omitted) in [(10_000, 10_000, 0), (100_000, 10_000, 90_000)] {
            let inspector = NetworkTraceInspector(store: store)
            let client = Client(baseURL: URL(string: "https://api.example.test")!, transport: Self.transport(events: count),
                                observer: inspector)
            let (seen, recorded) = try await Self.read(client)
            await inspector.shutdown()
            let bare = Client(baseURL: URL(string: "https://api.example.test")!, transport: Self.transport(events: count))
            let (_, plain) = try await Self.read(bare)
            #expect(seen == count)
            let summary = try #require(try store.recent(limit: 1).first)
            let stream = try #require(try store.exchange(id: summary.id)?.stream)
            #expect(stream.receivedCount == count && stream.messages.count == kept && stream.omittedCount == omitted)
            #expect(stream.messages.first?.index == 0 && stream.messages.last?.index == count - 1)
            #expect(inspector.droppedCount == 0)
            if ProcessInfo.processInfo.environment["LOUPE_STREAM_BUDGET"] != nil {
                print("stream budget: \(count) events: recorded \(Int(Double(count) / recorded)) msgs/s "
                      + "(\(recorded / Double(count) * 1e6) µs each), not recorded \(Int(Double(count) / plain)) msgs/s "
                      + "(\(plain / Double(count) * 1e6) µs each)")
            }
        }
    }
}
