import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
@testable import loupe
import LoupeTesting
import LoupeTrace
import Testing

@Suite("Recording failures are reported")
struct RecorderReportTests {
    /// A store whose disk is always full.
    struct FullDisk: TraceStore {
        struct DiskFull: Error, CustomStringConvertible { var description: String { "database or disk is full" } }
        func write(_ exchanges: [TraceExchange]) throws { throw DiskFull() }
        func recent(limit: Int) throws -> [TraceSummary] { [] }
        func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] { [] }
        func exchange(id: UUID) throws -> TraceExchange? { nil }
        func count() throws -> Int { 0 }
    }

    static func record(_ requests: Int, into store: some TraceStore) async throws -> NetworkTraceInspector {
        let inspector = NetworkTraceInspector(store: store)
        let client = Client(baseURL: URL(string: "http://api.example.test")!, transport: CannedTransport(status: .ok, json: "{}"),
                            observer: inspector)
        for n in 1...requests {
            let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "http://api.example.test/\(n)")!))
            #expect(response.status.code == 200)
        }
        await inspector.shutdown()
        return inspector
    }

    @Test("the recorder counts what the store committed, not what was sent")
    func counts() async throws {
        let full = try await Self.record(4, into: FullDisk())
        #expect(full.writtenCount == 0)
        #expect(full.failedExchangeCount == 4)
        let line = try #require(RecorderReport.line(
            written: full.writtenCount, dropped: full.droppedCount, failed: full.failedExchangeCount,
            lastError: full.lastWriteError, path: "/tmp/t.sqlite"))
        #expect(line == "loupe: recorder: 4 exchanges not stored in /tmp/t.sqlite (4 lost to store errors, last: database or disk is full); 0 stored")

        let store = InMemoryTraceStore()
        let fine = try await Self.record(3, into: store)
        #expect(fine.writtenCount == 3)
        #expect(try store.count() == 3)
        #expect(RecorderReport.line(written: 3, dropped: 0, failed: 0, lastError: nil, path: "x") == nil)
    }

    @Test("drops and failures are both named, on one line")
    func line() {
        #expect(RecorderReport.line(written: 18, dropped: 60, failed: 10, lastError: "disk\nfull", path: "p") ==
                "loupe: recorder: 70 exchanges not stored in p (60 dropped because the recorder fell behind; 10 lost to store errors, last: disk␊full); 18 stored")
    }
}
