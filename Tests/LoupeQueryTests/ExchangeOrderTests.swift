import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Exchanges: the order and the summary's size")
struct ExchangeOrderTests {
    static func summary(_ sequence: Int64, host: String = "a.test", operation: String = "op", duration: Double? = 1,
                        status: Int? = 200, size: Int? = 10) -> TraceSummary {
        TraceSummary(
            id: UUID(), sequence: sequence, operation: operation, method: "GET", url: "https://\(host)/", startedAt: Date(),
            duration: duration, outcome: .success, status: status, error: nil, attemptCount: 1, replayOf: nil,
            host: host, path: "/", responseBodySize: size)
    }

    @Test("absent values come first ascending and last descending; ties go by sequence in the same direction")
    func absentValues() {
        let absent = Self.summary(5, duration: nil, status: nil, size: nil), present = Self.summary(2)
        for key in [ExchangeSortKey.duration, .status, .size] {
            #expect(ExchangeOrder(key).precedes(absent, present))
            #expect(ExchangeOrder(key, descending: true).precedes(present, absent))
        }
        let older = Self.summary(3), newer = Self.summary(4)
        #expect(ExchangeOrder(.host).precedes(older, newer) && !ExchangeOrder(.host).precedes(newer, older))
        #expect(ExchangeOrder(.host, descending: true).precedes(newer, older))
        #expect(!ExchangeOrder(.host).precedes(older, older))
    }

    @Test("strings compare by UTF-8 bytes as SQLite's BINARY does, not as Swift's <")
    func binaryCollation() {
        let order = ExchangeOrder(.operation)
        // Upper case sorts before lower case; a prefix before its extensions.
        #expect(order.precedes(Self.summary(2, operation: "Z"), Self.summary(1, operation: "a")))
        #expect(order.precedes(Self.summary(2, operation: "ab"), Self.summary(1, operation: "abc")))
        // Swift calls these equal (canonically equivalent); their bytes differ (65 CC 81 < C3 A9).
        let composed = Self.summary(1, operation: "caf\u{E9}"), decomposed = Self.summary(2, operation: "cafe\u{301}")
        #expect(composed.operation == decomposed.operation)
        #expect(order.precedes(decomposed, composed) && !order.precedes(composed, decomposed))
        #expect(ExchangeOrder(.host).precedes(Self.summary(2, host: "B.test"), Self.summary(1, host: "a.test")))
    }

    @Test("the response body size is read from the store and kept in JSON only when there is one")
    func responseBodySize() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("size.sqlite"), bounds: nil)
        let body = TraceBody(data: Data("abc".utf8), size: 30_000, isTruncated: true)
        let exchanges = [
            TraceExchange(id: UUID(), operation: "a", method: "GET", url: "https://a.test/", startedAt: Date(),
                          outcome: .success, responseBody: body),
            TraceExchange(id: UUID(), operation: "b", method: "GET", url: "https://a.test/", startedAt: Date(),
                          outcome: .success),
        ]
        try store.write(exchanges)
        let summaries = try store.recent(limit: 2)
        #expect(summaries.map(\.responseBodySize) == [30_000, nil])
        #expect(exchanges.map(\.summary.responseBodySize) == [30_000, nil])

        let encoded = try summaries.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        #expect(encoded[0].contains(#""responseBodySize":30000"#) && !encoded[1].contains("responseBodySize"))
        // JSON written before the key existed still reads.
        let old = encoded[0].replacingOccurrences(of: #","responseBodySize":30000"#, with: "")
            .replacingOccurrences(of: #""responseBodySize":30000,"#, with: "")
        #expect(!old.contains("responseBodySize"))
        let decoded = try JSONDecoder().decode(TraceSummary.self, from: Data(old.utf8))
        #expect(decoded.responseBodySize == nil && decoded.id == summaries[0].id)
        #expect(try JSONDecoder().decode(TraceSummary.self, from: Data(encoded[0].utf8)) == summaries[0])
        try store.close()
    }
}
