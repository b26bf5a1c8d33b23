import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
import LoupeFilter
@testable import LoupeTrace
@testable import LoupeTestSupport
import Testing

@Suite("Rows written and not indexed yet: filters scan them, and the writer indexes them later")
struct SearchIndexTailTests {
    static func bodies(_ count: Int, _ word: String) -> [TraceExchange] {
        SearchIndexTests.exchanges((0..<count).map { Data("body \($0) \(word)\($0)".utf8) }, ["path"], big: false)
    }

    static func entries(_ store: SQLiteTraceStore, _ word: String) throws -> Int {
        try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_response_body WHERE search_response_body MATCH ?",
                             arguments: ["\"\(word.prefix(3))\""]) ?? 0
        }
    }

    static func count(_ store: SQLiteTraceStore, _ filter: String) throws -> Int {
        try store.exchangeCount(ExchangeQuery(filter: TraceFilter.parse(filter)))
    }

    @Test("no row is indexed in the transaction that writes it; filters, a viewer's too, find the waiting rows; closing indexes them")
    func waitingRows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("tail.sqlite")
        let writer = try SearchIndexTests.writer(path)
        try writer.write(Self.bodies(6, "tailword"))
        #expect(try Self.entries(writer, "tailword") == 0)
        #expect(try writer.unindexedCount() == 6)
        // Response bodies: four of the six (SearchIndexTests.exchanges leaves one in four without one).
        #expect(try Self.count(writer, "~bs tailword") == 4)
        #expect(try Self.count(writer, "~bs tailword3") == 1)
        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(viewer.hasSearchIndex)
        #expect(try Self.count(viewer, "~bs tailword") == 4)
        #expect(try viewer.unindexedCount() == 6)

        try writer.close()
        #expect(try viewer.unindexedCount() == 0)
        #expect(try Self.entries(viewer, "tailword") == 4)
        #expect(try Self.count(viewer, "~bs tailword") == 4)
        try viewer.close()
    }

    @Test("a writer that ended without closing leaves its rows to the next writer, which indexes them; until then they are scanned")
    func nextWriterFinishes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("left.sqlite")
        do {
            let writer = try SearchIndexTests.writer(path)
            try writer.write(Self.bodies(4, "leftover"))
            // Ends without closing, as a process killed between two runs of its indexer.
        }
        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        defer { try? viewer.close() }
        #expect(try viewer.unindexedCount() == 4)
        #expect(try Self.count(viewer, "~bs leftover2") == 1)
        // The next writer finds them when it opens (its policy indexes them at once: four rows are a full batch).
        let next = try SQLiteTraceStore(path: path, readOnly: false, bounds: nil, pruneEvery: 10_000, now: Date.init,
                                        indexing: SearchIndexPolicy(maxRows: 4),
                                        openSharedReader: { try DatabasePool(path: $0, configuration: $1) })
        try next.close()
        #expect(try viewer.unindexedCount() == 0)
        #expect(try Self.entries(viewer, "leftover") == 3)
        #expect(try Self.count(viewer, "~bs leftover2") == 1)
    }

    @Test("a run cut short (its transaction rolled back) loses nothing: the rows stay waiting, and the close indexes them")
    func runCutShort() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try SearchIndexTests.writer(folder.file("cut.sqlite"))
        try writer.write(Self.bodies(5, "cutword"))
        struct Cut: Error {}
        #expect(throws: Cut.self) {
            try writer.pool.write { db in
                let run = try SearchIndex.indexNewer(in: db, rowLimit: 100, byteLimit: .max)
                #expect(run.rows == 5 && run.caughtUp)
                throw Cut()
            }
        }
        #expect(try writer.unindexedCount() == 5)
        #expect(try Self.entries(writer, "cutword") == 0)
        #expect(try Self.count(writer, "~bs cutword") == 4)
        try writer.close()
        let viewer = try SQLiteTraceStore(path: folder.file("cut.sqlite"), readOnly: true)
        defer { try? viewer.close() }
        #expect(try viewer.unindexedCount() == 0)
        #expect(try Self.entries(viewer, "cutword") == 4)
    }

    @Test("runs are bounded by rows and by stored bytes, and take at least one row")
    func runLimits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try SearchIndexTests.writer(folder.file("limits.sqlite"))
        defer { try? writer.close() }
        try writer.write(Self.bodies(7, "limit"))
        let byRows = try writer.pool.write { try SearchIndex.indexNewer(in: $0, rowLimit: 3, byteLimit: .max) }
        #expect(byRows.rows == 3 && !byRows.caughtUp)
        let byBytes = try writer.pool.write { try SearchIndex.indexNewer(in: $0, rowLimit: 100, byteLimit: 1) }
        #expect(byBytes.rows == 1 && !byBytes.caughtUp)
        let rest = try writer.pool.write { try SearchIndex.indexNewer(in: $0, rowLimit: 100, byteLimit: .max) }
        #expect(rest.rows == 3 && rest.caughtUp)
        let none = try writer.pool.write { try SearchIndex.indexNewer(in: $0, rowLimit: 100, byteLimit: .max) }
        #expect(none.rows == 0 && none.caughtUp)
        #expect(try writer.unindexedCount() == 0)
    }

    @Test("a waiting row rewritten or deleted is indexed as it is when its turn comes; an indexed one leaves the index at once")
    func changesToWaitingRows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try SearchIndexTests.writer(folder.file("changes.sqlite"))
        defer { try? writer.close() }
        try writer.write(Self.bodies(4, "before"))
        try writer.searchIndexer?.indexAll()
        try writer.write(Self.bodies(4, "waiting"))
        // `loupe redact`'s rewrite and a prune, over indexed rows (1–4) and waiting ones (5–8).
        try writer.pool.write { db in
            try db.execute(sql: "UPDATE exchange SET response_body = CAST('redacted' AS BLOB) WHERE sequence IN (1, 5)")
            try db.execute(sql: "DELETE FROM exchange WHERE sequence IN (3, 7)")
        }
        #expect(try Self.entries(writer, "before") == 1)  // row 4 (row 2 has no response body)
        try writer.searchIndexer?.indexAll()
        #expect(try writer.unindexedCount() == 0)
        // Rows 2 and 6 have no response body; 1 and 5 say `redacted` now; 3 and 7 are gone: 4 and 8 are left.
        #expect(try Self.entries(writer, "before") == 1)
        #expect(try Self.entries(writer, "waiting") == 1)
        #expect(try Self.entries(writer, "redacted") == 2)
        #expect(try Self.count(writer, "~bs redacted") == 2)
        // An FTS5 integrity check: no entry was taken out of the index that was not in it.
        try writer.pool.write { db in
            for table in SearchIndex.Table.allCases.map(\.rawValue) + ["search_messages"] {
                try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 0)")
            }
        }
    }

    @Test("the default writer indexes by itself once its rows are a full batch, off the caller's thread")
    func indexesByItself() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = try SQLiteTraceStore(path: folder.file("auto.sqlite"), readOnly: false, bounds: nil, pruneEvery: 10_000,
                                          now: Date.init, indexing: SearchIndexPolicy(maxRows: 5, maxDelay: .seconds(7_200), quiet: .seconds(7_200)),
                                          openSharedReader: { try DatabasePool(path: $0, configuration: $1) })
        defer { try? writer.close() }
        try writer.write(Self.bodies(5, "self"))
        // The run was queued on the indexer's own queue before `write` returned: waiting for the queue waits for it.
        writer.searchIndexer?.waitForQueuedRuns()
        #expect(try writer.unindexedCount() == 0)
        try writer.write(Self.bodies(4, "self"))
        writer.searchIndexer?.waitForQueuedRuns()
        #expect(try writer.unindexedCount() == 4)  // not a full batch: it waits for the writer to turn idle
    }
}

extension SearchIndexTailTests {
    @Test("a v12 store (indexed by triggers): a viewer reads it as all indexed; a writer's v13 keeps those rows indexed and marks them")
    func upgradeFromV12() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("v12.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
            try SQLiteSchema.migrator.migrate(queue, upTo: "v12")
            try queue.write { db in
                var inserter = try ExchangeInserter(db, storedAt: Date())
                try inserter.insert(contentsOf: Self.bodies(4, "oldword"))
                try inserter.finish()
            }
            try queue.close()
        }
        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(viewer.hasSearchIndex)
        #expect(try viewer.unindexedCount() == 0)  // no end mark: v12's triggers indexed every row
        #expect(try Self.count(viewer, "~bs oldword2") == 1)
        try viewer.close()

        let writer = try SearchIndexTests.writer(path)
        defer { try? writer.close() }
        #expect(try writer.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 13)
        #expect(try writer.pool.read { try SearchIndex.endMark(in: $0) } == 4)
        #expect(try writer.unindexedCount() == 0)
        #expect(try Self.entries(writer, "oldword") == 3)
        try writer.write(Self.bodies(2, "newword"))
        #expect(try writer.unindexedCount() == 2)
        #expect(try Self.count(writer, "~bs newword0") == 1)
        // An indexed row deleted leaves the index at once (the v13 trigger); the waiting rows are indexed later.
        try writer.pool.write { try $0.execute(sql: "DELETE FROM exchange WHERE sequence = 1") }
        #expect(try Self.entries(writer, "oldword") == 2)
        try writer.searchIndexer?.indexAll()
        #expect(try writer.unindexedCount() == 0)
        #expect(try Self.entries(writer, "newword") == 1)
    }
}
