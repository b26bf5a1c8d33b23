import Foundation
import GRDB
import Loupe
@testable import LoupeCompare
import LoupeQuery
@_spi(Synthetic) import LoupeTrace
import Testing

/// Two synthetic stores drawn from different seeds of the same mix (so every unchanged operation still differs
/// by chance), with four known differences made in B: a slowed operation, a new 500, a field turned null and an
/// operation gone. The comparison must find each and nothing else.
@Suite("Compare: known differences")
struct KnownDifferencesTests {
    static func makeStores() throws -> (a: String, b: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-compare-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let a = folder + "/a.sqlite", b = folder + "/b.sqlite"
        try SyntheticStore.create(at: a, count: 40_000, seed: 2024)
        try SyntheticStore.create(at: b, count: 40_000, seed: 77)
        // op11 answers whole JSON documents on both sides; B's email is null.
        for (path, email) in [(a, #""e@x.test""#), (b, "null")] {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                let body = #"{"id":7,"email":\#(email),"tags":["a"]}"#
                try db.execute(sql: """
                    UPDATE exchange SET response_body = CAST(? AS BLOB), response_body_size = ?, response_body_truncated = 0
                    WHERE operation = 'op11' AND status = 200
                    """, arguments: [body, body.utf8.count])
            }
            try queue.close()
        }
        let queue = try DatabaseQueue(path: b)
        try queue.write { db in
            try db.execute(sql: "UPDATE exchange SET duration = duration * 1.5, ended_at = started_at + duration * 1.5 WHERE operation = 'op05'")
            try db.execute(sql: """
                UPDATE exchange SET status = 500, outcome = 'httpError' WHERE operation = 'op07' AND sequence % 5 = 0
                """)
            try db.execute(sql: "DELETE FROM exchange WHERE operation = 'op13'")
        }
        try queue.close()
        return (a, b)
    }

    static func side(_ path: String, filter: TraceFilter? = nil) throws -> SideFigures {
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        defer { try? store.close() }
        return try SideFigures.read(store, filter: filter)
    }

    @Test("each difference is found, and nothing else")
    func knownDifferences() throws {
        let (a, b) = try Self.makeStores()
        defer { try? FileManager.default.removeItem(atPath: (a as NSString).deletingLastPathComponent) }
        let comparison = Comparison(a: try Self.side(a), b: try Self.side(b))
        let called = comparison.operations.filter { $0.verdict != .unchanged }
        #expect(called.map(\.name).sorted() == ["op05", "op07", "op11", "op13"])
        let byName = Dictionary(uniqueKeysWithValues: comparison.operations.map { ($0.name, $0) })
        #expect(byName["op05"]?.verdict == .regressed)
        #expect(byName["op05"]?.reasons.first?.hasPrefix("p50 +5") == true)
        #expect(byName["op07"]?.verdict == .regressed)
        #expect(byName["op07"]?.reasons.contains { $0.hasPrefix("errors +") } == true)
        #expect(byName["op07"]?.reasons.contains { $0.hasPrefix("p") } == false)
        #expect(byName["op11"]?.verdict == .regressed)
        #expect(byName["op11"]?.reasons == ["now null $.email"])
        #expect(byName["op13"]?.verdict == .gone)
        // Other operations' JSON (short bodies stored whole) has the same shape on both sides.
        #expect(comparison.operations.allSatisfy { $0.name == "op11" || $0.drifts.isEmpty })
        #expect(comparison.hosts.allSatisfy { $0.verdict == .unchanged })
        #expect(comparison.hasRegression)
        // Worst first: the regressions, then the gone operation.
        #expect(comparison.operations.prefix(3).allSatisfy { $0.verdict == .regressed })
        #expect(comparison.operations[3].name == "op13")
    }

    @Test("a store against itself, and filters picking two sets of one store")
    func sameStore() throws {
        let (a, _) = try Self.makeStores()
        defer { try? FileManager.default.removeItem(atPath: (a as NSString).deletingLastPathComponent) }
        let itself = Comparison(a: try Self.side(a), b: try Self.side(a))
        #expect(!itself.hasRegression)
        #expect((itself.operations + itself.hosts).allSatisfy { $0.verdict == .unchanged && $0.reasons.isEmpty })
        let gets = try Self.side(a, filter: .method("GET")), deletes = try Self.side(a, filter: .method("DELETE"))
        #expect(gets.total + deletes.total < itself.totalA)
        #expect(gets.operations.values.allSatisfy { $0.count > 0 })
    }
}
