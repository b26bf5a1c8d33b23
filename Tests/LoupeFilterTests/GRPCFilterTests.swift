import Foundation
import Loupe
@testable import LoupeFilter
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeTestSupport
import Testing
import Tracing

/// `~grpc` and `~gs CODE`: gRPC calls by their status, in memory, from a summary and in SQL alike.
@Suite("gRPC filter terms")
struct GRPCFilterTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func exchange(_ name: String, stream: TraceStream?, status: Int? = 200) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: name, method: "POST", url: "http://127.0.0.1:50051/\(name)", startedAt: start,
            endedAt: start.addingTimeInterval(0.01), outcome: .success, status: status, stream: stream)
    }

    /// An HTTP call, two gRPC calls (OK and UNAVAILABLE, the second with no response at all) and a WebSocket whose
    /// close code is 14: only the kind tells it from a gRPC UNAVAILABLE.
    static let corpus = [
        exchange("http", stream: nil),
        exchange("loupe.test.Echo/Unary", stream: TraceStream(kind: .grpc, sentCount: 1, receivedCount: 1, closeCode: 0, closedBy: "server")),
        exchange("loupe.test.Echo/Flaky", stream: TraceStream(kind: .grpc, sentCount: 1, closeCode: 14, closeReason: "warming up", closedBy: "server"), status: nil),
        exchange("ws", stream: TraceStream(kind: .webSocket, closeCode: 14, closedBy: "server"), status: 101),
    ]

    @Test("terms select the same calls in memory, from summaries and from SQLite", arguments: [
        ("~grpc", ["loupe.test.Echo/Unary", "loupe.test.Echo/Flaky"]),
        ("~gs UNAVAILABLE", ["loupe.test.Echo/Flaky"]), ("~gs unavailable", ["loupe.test.Echo/Flaky"]),
        ("~gs 14", ["loupe.test.Echo/Flaky"]), ("~gs OK", ["loupe.test.Echo/Unary"]), ("~gs 0", ["loupe.test.Echo/Unary"]),
        ("~grpc & !~gs OK", ["loupe.test.Echo/Flaky"]), ("!~grpc", ["http", "ws"]), ("~gs DEADLINE_EXCEEDED", []),
    ])
    func select(text: String, expected: [String]) throws {
        let filter = try TraceFilter.parse(text)
        #expect(Self.corpus.filter(filter.matches).map(\.operation) == expected)
        #expect(Self.corpus.filter { filter.matches($0.summary) == true }.map(\.operation) == expected)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(Self.corpus)
        #expect(try store.summaries(matching: filter, limit: 100).map(\.operation).sorted() == expected.sorted())
        // The canonical text reads back as the same filter.
        #expect(try TraceFilter.parse(filter.description) == filter)
    }

    @Test("a status that gRPC does not have is refused with what is wanted", arguments: ["~gs 17", "~gs -1", "~gs NOPE", "~gs"])
    func refused(text: String) {
        #expect(throws: TraceFilterError.self) { try TraceFilter.parse(text) }
    }

    @Test("a gRPC row is listed by its status name, even without a response")
    func statusColumn() {
        #expect(Self.corpus[1].summary.openedStream?.code == "OK")
        #expect(Self.corpus[2].summary.openedStream?.code == "UNAVAILABLE")
        #expect(Self.corpus[2].stream?.isFailedCall == true)
        #expect(Self.corpus[3].summary.openedStream?.code == "14")
    }
}

/// A gRPC call's spans carry OpenTelemetry's RPC attributes beside the HTTP ones.
@Suite("gRPC span attributes")
struct GRPCSpanAttributesTests {
    @Test func exchangeSpanHasRPCAttributes() throws {
        let flaky = GRPCFilterTests.corpus[2]
        let span = try #require(flaky.recordedSpans.first)
        #expect(span.attributes.get("rpc.system") == .string("grpc"))
        #expect(span.attributes.get("rpc.service") == .string("loupe.test.Echo"))
        #expect(span.attributes.get("rpc.method") == .string("Flaky"))
        #expect(span.attributes.get("rpc.grpc.status_code") == .int64(14))
        #expect(span.attributes.get("error.type") == .string("UNAVAILABLE"))
        // An HTTP exchange has none of them.
        #expect(GRPCFilterTests.corpus[0].recordedSpans.first?.attributes.get("rpc.system") == nil)
    }
}
