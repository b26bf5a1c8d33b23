import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The inserter's multi-row statements (DECISIONS 68): they stop at a row that breaks a constraint and keep the
/// rows before it (`INSERT OR FAIL`, so SQLite keeps no statement journal), and the inserter finishes the group one
/// row at a time from there. What the store holds afterwards must be what one insert at a time writes.
@Suite("SQLiteTraceStore multi-row inserts")
struct StoreInsertStatementTests {
    /// An exchange with two attempts and two events, told apart by `n`.
    static func numbered(_ n: Int, id: UUID = UUID()) -> TraceExchange {
        var exchange = Fixture.fullExchange(id: id)
        exchange.operation = "op\(n)"
        exchange.replayOf = nil
        return exchange
    }

    /// A same-id row at each place of a 16-row group: an id the store holds from an earlier batch, or the id of
    /// the row just before it in the same statement (the kept row that is then replaced is the statement's newest).
    enum Collision: CustomStringConvertible {
        case stored(at: Int)
        case previous(at: Int)
        /// The previous row's id, in the first insert a store ever makes (SQLite has no counter row for it yet).
        case previousInANewStore(at: Int)

        var description: String {
            switch self {
            case .stored(let at): "an earlier batch's id at \(at)"
            case .previous(let at): "the previous row's id at \(at)"
            case .previousInANewStore(let at): "the previous row's id at \(at), in a new store"
            }
        }
    }

    @Test("a same-id row in a 16-row insert: the rows before it are kept, every cell is what one insert at a time writes, and no sequence is given twice",
          arguments: [Collision.stored(at: 0), .stored(at: 1), .stored(at: 7), .stored(at: 15),
                      .previous(at: 1), .previous(at: 8), .previous(at: 15), .previousInANewStore(at: 1),
                      .previousInANewStore(at: 15)])
    func collisionInsideAGroup(_ collision: Collision) throws {
        let group = ExchangeInserter.exchangesPerInsert
        #expect(group == 16)
        var earlier = (0..<3).map { Self.numbered(100 + $0) }
        var batch = (0..<group).map { Self.numbered($0) }
        switch collision {
        case .stored(let at): batch[at].id = earlier[1].id
        case .previous(let at): batch[at].id = batch[at - 1].id
        case .previousInANewStore(let at):
            batch[at].id = batch[at - 1].id
            earlier = []
        }
        let later = (0..<group).map { Self.numbered(200 + $0) }

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreWriteColumnsTests.store(folder.file("store.sqlite"))
        let reference = try StoreWriteColumnsTests.store(folder.file("reference.sqlite"))
        var counts: [WriteCount] = []
        for exchanges in [earlier, batch, later] {
            counts.append(try store.writeAll { sink in for exchange in exchanges { try sink(exchange) } })
            try reference.pool.write { db in
                for exchange in exchanges { try GRDBReference.insert(exchange, storedAt: StoreWriteColumnsTests.now, in: db) }
            }
        }
        #expect(counts == [WriteCount(written: earlier.count, replaced: 0), WriteCount(written: 16, replaced: 1),
                           WriteCount(written: 16, replaced: 0)], "\(collision)")
        for table in ["exchange", "attempt", "event", "sqlite_sequence"] {
            let written = try StoreWriteColumnsTests.cells(of: table, in: store)
            let expected = try StoreWriteColumnsTests.cells(of: table, in: reference)
            #expect(written == expected, "\(table), \(collision)")
        }
        let sequences = try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT sequence FROM exchange") }
        #expect(sequences.count == earlier.count + group - 1 + group, "\(collision)")
    }

    /// A list written at once (``SQLiteTraceStore/write(_:)``): how many exchanges, whether a prune notice waits for
    /// the first, and where an id the store already holds sits in the list.
    struct ListCase: CustomStringConvertible, Sendable {
        var count: Int
        var notice: Bool
        var collisionAt: Int?

        var description: String {
            "\(count) exchanges\(notice ? ", a prune notice" : "")\(collisionAt.map { ", a stored id at \($0)" } ?? "")"
        }
    }

    @Test("a list written at once, its groups bound straight from it, stores exactly what the same exchanges written one at a time store",
          arguments: [ListCase(count: 1, notice: false), ListCase(count: 15, notice: true), ListCase(count: 16, notice: false),
                      ListCase(count: 16, notice: true), ListCase(count: 17, notice: false), ListCase(count: 40, notice: false),
                      ListCase(count: 40, notice: true), ListCase(count: 40, notice: false, collisionAt: 3),
                      ListCase(count: 40, notice: false, collisionAt: 20), ListCase(count: 40, notice: true, collisionAt: 3),
                      ListCase(count: 40, notice: true, collisionAt: 31), ListCase(count: 40, notice: false, collisionAt: 39)])
    func listWrittenAtOnce(_ list: ListCase) throws {
        let earlier = (0..<3).map { Self.numbered(100 + $0) }
        var batch = (0..<list.count).map { Self.numbered($0) }
        if let at = list.collisionAt { batch[at].id = earlier[2].id }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // `write` takes the list; `writeAll` hands the inserter one exchange at a time (the path the test above checks
        // against GRDB's own inserts).
        var stores: [SQLiteTraceStore] = []
        for (name, atOnce) in [("list.sqlite", true), ("single.sqlite", false)] {
            let store = try StoreWriteColumnsTests.store(folder.file(name))
            try store.write(earlier)
            if list.notice {
                let result = try store.prune(TraceStoreBounds(maxCount: 2, maxBytes: nil, maxAge: nil),
                                             now: StoreWriteColumnsTests.now, dryRun: false)
                #expect(result.removedCount == 1)
            }
            if atOnce {
                try store.write(batch)
            } else {
                try store.writeAll { sink in for exchange in batch { try sink(exchange) } }
            }
            stores.append(store)
        }
        for table in ["exchange", "attempt", "event", "message", "sqlite_sequence"] {
            let written = try StoreWriteColumnsTests.cells(of: table, in: stores[0])
            let expected = try StoreWriteColumnsTests.cells(of: table, in: stores[1])
            #expect(written == expected, "\(table), \(list)")
        }
        // The notice was taken from the store's settings (a table without rowids) in both.
        let settings = try stores.map { store in
            try store.pool.read { db in try String.fetchAll(db, sql: "SELECT key FROM store_setting ORDER BY key") }
        }
        #expect(settings[0] == settings[1] && !settings[0].contains("pending_prune"), "\(list)")
        // The batch is there in its order, each exchange with its own attempts and events.
        let read = try stores[0].exchanges(matching: nil, limit: 100).filter { exchange in batch.contains { $0.id == exchange.id } }
        #expect(read.map(\.operation) == batch.map(\.operation), "\(list)")
        for (stored, written) in zip(read, batch) {
            #expect(stored.attempts == written.attempts, "\(list)")
            #expect(stored.events.filter { $0.kind != PruneNotice.eventKind } == written.events, "\(list)")
        }
        let notices = try stores[0].pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE kind = ?", arguments: [PruneNotice.eventKind.rawValue])
        }
        #expect(notices == (list.notice ? 1 : 0), "\(list)")
        for store in stores { try store.close() }
    }

    @Test("the multi-row inserts stop at a failing row instead of undoing the statement: every constraint in their programs halts with FAIL, none with ABORT")
    func groupInsertsNeedNoStatementJournal() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreWriteColumnsTests.store(folder.file("store.sqlite"))
        for sql in [RowWriter.insertExchangeGroup, RowWriter.insertAttempts(ExchangeInserter.attemptsPerInsert)] {
            let halts = try store.pool.write { db in
                let nulls = Array(repeating: DatabaseValue.null, count: sql.filter { $0 == "?" }.count)
                return try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: StatementArguments(nulls))
            }.filter { row in
                let opcode: String = row["opcode"]
                let code: Int = row["p1"]
                return (opcode == "Halt" || opcode == "HaltIfNull") && code != 0
            }
            #expect(!halts.isEmpty)
            // P2 is the conflict resolution: 2 is ABORT (undo the statement, which needs its journal), 3 is FAIL.
            #expect(halts.allSatisfy { ($0["p2"] as Int) == 3 }, "\(sql.prefix(40))")
        }
    }

    /// An exchange with two attempts, two events and a stream of three kept messages.
    static func streamed(_ n: Int, id: UUID = UUID()) -> TraceExchange {
        var exchange = numbered(n, id: id)
        exchange.stream = TraceStream(kind: .webSocket, messages: (0..<3).map {
            TraceMessage(index: $0, direction: .received, at: Fixture.start, type: "text", size: 2, payload: Data("m\($0)".utf8))
        }, receivedCount: 3, byteCount: 6, closedBy: "server")
        return exchange
    }

    /// Rows of `attempt`, `event` and `message` whose exchange is not in the store.
    static func orphans(in store: SQLiteTraceStore) throws -> [String: Int] {
        try store.pool.read { db in
            var found: [String: Int] = [:]
            for table in ["attempt", "event", "message"] {
                found[table] = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM \(table) WHERE exchange_sequence NOT IN (SELECT sequence FROM exchange)
                    """)
            }
            return found
        }
    }

    @Test("the store's connections enforce no foreign keys: a multi-row attempt insert neither looks its exchanges up nor keeps a journal")
    func noForeignKeyChecks() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreWriteColumnsTests.store(folder.file("store.sqlite"))
        #expect(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 0)
        let sql = RowWriter.insertAttempts(ExchangeInserter.attemptsPerInsert)
        let opcodes = try store.pool.write { db in
            let nulls = Array(repeating: DatabaseValue.null, count: sql.filter { $0 == "?" }.count)
            return try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: StatementArguments(nulls)).map { $0["opcode"] as String }
        }
        #expect(!opcodes.contains("FkCounter") && !opcodes.contains("FkIfZero"))
    }

    @Test("pruning and replacing take an exchange's attempts, events and messages with it, with nothing left to cascade")
    func deletesTakeTheChildren() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try StoreWriteColumnsTests.store(folder.file("store.sqlite"))
        let exchanges = (0..<40).map { Self.streamed($0) }
        try store.write(exchanges)
        // Replaced: one in a later batch, alone and inside a 16-row group.
        var again = (0..<ExchangeInserter.exchangesPerInsert).map { Self.numbered(100 + $0) }
        var replacement = Self.streamed(103, id: exchanges[30].id)
        replacement.attempts = Array(replacement.attempts.prefix(1))
        let firstMessage = Array(replacement.stream?.messages.prefix(1) ?? [])
        replacement.stream?.messages = firstMessage
        again[3] = replacement
        let counts = try store.writeAll { sink in for exchange in again { try sink(exchange) } }
        #expect(counts == WriteCount(written: 16, replaced: 1))
        #expect(try Self.orphans(in: store) == ["attempt": 0, "event": 0, "message": 0])
        let read = try #require(try store.exchange(id: exchanges[30].id))
        #expect(read.operation == "op103" && read.attempts.count == 1 && read.stream?.messages.count == 1)

        let result = try store.prune(TraceStoreBounds(maxCount: 20, maxBytes: nil, maxAge: nil))
        #expect(result.removedCount == 39 + 16 - 20)
        #expect(try Self.orphans(in: store) == ["attempt": 0, "event": 0, "message": 0])
        let left = try store.pool.read { db in
            try ["attempt", "event", "message"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
        }
        // Kept: the last 4 of the first batch (2 attempts, 2 events, 3 messages each) and the 16 of the second
        // (2 attempts and 2 events each; the replaced one 1 attempt and 1 message).
        #expect(left == [4 * 2 + 15 * 2 + 1, 4 * 2 + 16 * 2, 4 * 3 + 1])
    }

    @Test("blobs up to 16 KiB are bound from the row's buffer, larger ones copied by SQLite, an empty one as GRDB binds it; all read back as written")
    func blobsFromTheRowBuffer() throws {
        let tiny = Data([0, 1, 2])  // stored inline in the `Data` value
        let small = Data((0..<1_000).map { UInt8($0 % 251) })
        let edge = Data(repeating: 7, count: SQLiteRow.bufferedBlobLimit)
        let large = Data(repeating: 9, count: SQLiteRow.bufferedBlobLimit + 1)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a BLOB, b BLOB, c BLOB, d BLOB, e BLOB, f TEXT)")
            let insert = try SQLiteInsert(db, sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)")
            var buffered: [Int32] = []
            for _ in 0..<2 {  // the statement is reused, as the inserter's are
                try insert.insert { row in
                    row.add(tiny)
                    row.add(small)
                    row.add(edge)
                    row.add(large)
                    row.add(Data())
                    row.add("after the blobs")
                    buffered = row.texts.filter(\.isBlob).map(\.index)
                }
            }
            #expect(buffered == [1, 2, 3])
            let rows = try Row.fetchAll(db, sql: "SELECT a, b, c, d, e, f, typeof(e) FROM t")
            #expect(rows.count == 2)
            // An empty one is bound as GRDB's own binding binds it.
            let grdb = try String.fetchOne(db, sql: "SELECT typeof(?)", arguments: [Data()])
            for row in rows {
                #expect(row[0] as Data? == tiny && row[1] as Data? == small && row[2] as Data? == edge)
                #expect(row[3] as Data? == large && row[5] as String? == "after the blobs" && row[6] as String? == grdb)
            }
        }
    }
}
