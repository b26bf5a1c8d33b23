import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The store binds its rows through SQLite's C API (``SQLiteInsert``); these check that what it writes is what
/// GRDB's generic path writes, column by column and type by type, and that it reads back whole.
@Suite("SQLiteTraceStore writes")
struct StoreWriteColumnsTests {
    @Test("every column of varied exchanges, replaced ones among them, is what GRDB's own binding writes")
    func sameColumnsAsGRDB() throws {
        let seed = UInt64.random(in: .min ... .max)
        var random = HARStreamFixtures.Random(state: seed)
        var exchanges = (0..<300).map { HARStreamFixtures.exchange($0, &random) }
        exchanges += Self.extremes()
        // A NUL inside a text is stored up to it, as GRDB's `-1` length has SQLite read it (texts are bound from one
        // buffer with their lengths since DECISIONS 68); an empty text stays '' (not NULL).
        var nul = Fixture.fullExchange()
        nul.error = "before the NUL \u{0} after it"
        nul.operation = ""
        nul.attempts[0].error = "\u{0}"
        exchanges.append(nul)
        // Replacements: ids written again in a later batch, and in the same one (their attempts may still be
        // waiting for a multi-row insert when the collision deletes them).
        for index in Array(stride(from: 0, to: 40, by: 3)) + Array(stride(from: 262, to: 300, by: 4)) {
            var again = HARStreamFixtures.exchange(1000 + index, &random)
            again.id = exchanges[index].id
            exchanges.append(again)
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(folder.file("store.sqlite"))
        let reference = try Self.store(folder.file("reference.sqlite"))
        for batch in [exchanges[0..<150], exchanges[150..<260], exchanges[260...]] {
            try store.write(Array(batch))
            try reference.pool.write { db in
                for exchange in batch { try GRDBReference.insert(exchange, storedAt: Self.now, in: db) }
            }
        }
        for table in ["exchange", "attempt", "event"] {
            let written = try Self.cells(of: table, in: store), expected = try Self.cells(of: table, in: reference)
            #expect(written.count == expected.count, "\(table), seed \(seed)")
            for (row, (actual, wanted)) in zip(written, expected).enumerated() where actual != wanted {
                let column = actual.indices.first { $0 >= wanted.count || actual[$0] != wanted[$0] } ?? 0
                let other = wanted.count > column ? wanted[column] : "nothing"
                Issue.record("\(table) row \(row) column \(column), seed \(seed): \(actual[column]) vs \(other)")
                break
            }
        }
    }

    @Test("NULLs, empty and large blobs, unicode, extreme integers and doubles read back as written, replaced or not")
    func readsBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(folder.file("store.sqlite"))
        var exchanges = Self.extremes()
        try store.write(exchanges + [exchanges[3]])
        // A collision replaces the same-id row (with attempts past one multi-row insert) by one with different
        // attempts and events, in the batch that wrote it and in a later one.
        var replaced = exchanges[3]
        replaced.operation = "replaced ✓"
        replaced.attempts = Array(replaced.attempts.prefix(1))
        replaced.events = []
        replaced.responseBody = nil
        try store.write([replaced, Fixture.simple(1)])
        exchanges[3] = replaced
        for exchange in exchanges {
            var read = try #require(try store.exchange(id: exchange.id))
            #expect(read.sequence != nil)
            read.sequence = nil
            #expect(read == exchange)
        }
        #expect(try store.count() == exchanges.count + 1)
        let attempts = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attempt") }
        #expect(attempts == exchanges.reduce(0) { $0 + $1.attempts.count }, "no attempt of a replaced row is left")
    }

    @Test("statement journals are kept in memory while inserting only: the setting is back to the default after a write, a failed one included")
    func statementJournalsInMemoryOnlyWhileInserting() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(folder.file("store.sqlite"))
        func tempStore() throws -> Int? { try store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA temp_store") } }
        let inside = try store.insertTransaction { try Int.fetchOne($0, sql: "PRAGMA temp_store") }
        #expect(inside == 2, "MEMORY inside")
        try store.write((0..<40).map { Fixture.simple($0) })
        #expect(try tempStore() == 0)
        // The pragmas are prepared once per connection and run again for each transaction.
        #expect(try store.insertTransaction { try Int.fetchOne($0, sql: "PRAGMA temp_store") } == 2, "MEMORY inside again")
        #expect(try tempStore() == 0)
        #expect(throws: (any Error).self) { try store.insertTransaction { _ in throw TraceStoreError.notFound("x") } }
        #expect(try tempStore() == 0)
        #expect(try store.count() == 40)
    }

    @Test("an insert SQLite refuses fails the whole batch with a store error, and the next batch is written")
    func failedInsertLeavesTheStoreUsable() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(folder.file("store.sqlite"))
        try store.pool.write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON attempt WHEN NEW.error = 'refuse me'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
        }
        var refused = Fixture.fullExchange()
        refused.attempts[1].error = "refuse me"
        #expect {
            try store.write([Fixture.simple(1), refused])
        } throws: { error in
            (error as? TraceStoreError)?.code == .database && "\(error)".contains("refused by the test")
        }
        #expect(try store.count() == 0, "the batch is rolled back")
        let next = [Fixture.fullExchange(), Fixture.simple(2)]
        try store.write(next)
        #expect(try store.count() == 2)
        var read = try #require(try store.exchange(id: next[0].id))
        read.sequence = nil
        #expect(read == next[0])
    }

    // MARK: Helpers

    static let now = Date(timeIntervalSince1970: 1_700_000_123.5)

    static func store(_ path: String) throws -> SQLiteTraceStore {
        try SQLiteTraceStore(path: path, bounds: nil, now: { now })
    }

    /// Exchanges at the edges of every column's type: absent and empty values, blobs of every byte and of 1 MB,
    /// text past ASCII, the largest and smallest integers, tiny and huge doubles.
    static func extremes() -> [TraceExchange] {
        let start = Fixture.start
        var all = Fixture.fullExchange()
        all.operation = "Zoë 日本語 😀 e\u{301} \u{2028}"
        all.url = "https://bücher.example/ä?q=😀"
        all.status = Int.max
        all.requestBody = TraceBody(data: Data((0...255).map(UInt8.init)), size: Int.max, isTruncated: true)
        all.responseBody = TraceBody(data: Data(repeating: 0xA5, count: 1 << 20), size: 1 << 20, isTruncated: false)
        all.attempts[0].status = Int.min
        all.attempts[0].retryDelay = 1e-300
        all.attempts[1].retryDelay = TraceTime.maxDuration
        all.attempts[1].notes = ["cache": "hit", "ключ": "значение"]
        all.events[0].attributes = ["": "", "quote\"": "back\\slash"]
        let bare = TraceExchange(
            id: UUID(), operation: "", method: "", url: "", startedAt: start, outcome: .transportError,
            requestBody: TraceBody(data: Data(), size: 0, isTruncated: false),
            responseBody: TraceBody(data: Data(), size: 0, isTruncated: true))
        let negative = TraceExchange(
            id: UUID(), operation: "before 1970", method: "GET", url: "http://[::1]:8080/x",
            startedAt: Date(timeIntervalSince1970: -86_400.5),
            endedAt: Date(timeIntervalSince1970: -86_400.25), outcome: .cancelled, status: 0,
            attempts: [TraceAttempt(number: Int.max, startedAt: Date(timeIntervalSince1970: -86_400.5))],
            events: [TraceEvent(kind: "x-\u{1}", at: start, message: "")], replayOf: UUID())
        var many = Fixture.fullExchange()
        many.attempts = (1...(ExchangeInserter.attemptsPerInsert * 2 + 3)).map { number in
            TraceAttempt(number: number, startedAt: start.addingTimeInterval(Double(number)), status: 500 + number,
                         // Runs of equal notes and changes between them: the inserter reuses the last notes' text.
                         notes: number % 5 == 0 ? ["n": String(number)] : number > 30 ? ["run": "same", "b": "2"] : [:])
        }
        return [all, bare, negative, many]
    }

    /// Every cell of `table` in row order, as its SQLite type and exact value (doubles by bit pattern, text and
    /// blobs by bytes).
    static func cells(of table: String, in store: SQLiteTraceStore) throws -> [[String]] {
        try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map { row in
                row.databaseValues.map { value in
                    switch value.storage {
                    case .null: "null"
                    case .int64(let int): "integer \(int)"
                    case .double(let double): "real \(double.bitPattern)"
                    case .string(let text): "text \(Array(text.utf8))"
                    case .blob(let data): "blob \(Array(data))"
                    }
                }
            }
        }
    }
}

/// The rows written through GRDB's generic path: `StatementArguments` of `DatabaseValueConvertible`s, as the store
/// wrote them before it bound through the C API, with a same-id row deleted first.
enum GRDBReference {
    static func insert(_ exchange: TraceExchange, storedAt: Date, in db: Database) throws {
        let id = exchange.id.uuidString
        // The store's connections enforce no foreign keys (DECISIONS 69): the children go first, by hand.
        for table in ["attempt", "event", "message"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE exchange_sequence IN (SELECT sequence FROM exchange WHERE id = ?)",
                           arguments: [id])
        }
        try db.execute(sql: "DELETE FROM exchange WHERE id = ?", arguments: [id])
        let (host, path) = StoredURLParts.hostAndPath(of: exchange.url)
        let values: [(any DatabaseValueConvertible)?] = [
            id, exchange.startedAt.timeIntervalSince1970, exchange.endedAt?.timeIntervalSince1970, exchange.duration,
            exchange.operation, exchange.method, exchange.url, host, path, exchange.status, exchange.outcome.rawValue,
            exchange.error, exchange.attempts.count, exchange.replayOf?.uuidString,
            StoredJSON.text(of: exchange.requestHeaders), exchange.requestBody?.data, exchange.requestBody?.size,
            exchange.requestBody?.isTruncated, StoredJSON.text(of: exchange.responseHeaders),
            exchange.responseBody?.data, exchange.responseBody?.size, exchange.responseBody?.isTruncated,
            storedAt.timeIntervalSince1970, exchange.storedByteCount, exchange.source?.storedText,
            exchange.stream?.header.storedText, exchange.beforeRule?.storedText,
        ]
        try db.execute(sql: RowWriter.insertExchange, arguments: StatementArguments(values))
        let sequence = db.lastInsertedRowID
        for attempt in exchange.attempts {
            let values: [(any DatabaseValueConvertible)?] = [
                sequence, attempt.number, attempt.startedAt.timeIntervalSince1970,
                attempt.requestSentAt?.timeIntervalSince1970, attempt.firstByteAt?.timeIntervalSince1970,
                attempt.endedAt?.timeIntervalSince1970, attempt.status, attempt.error, attempt.circuitState,
                attempt.retryReason, attempt.retryDelay, attempt.notes.isEmpty ? nil : try json(attempt.notes),
            ]
            try db.execute(sql: RowWriter.insertAttempt, arguments: StatementArguments(values))
        }
        for event in exchange.events {
            let values: [(any DatabaseValueConvertible)?] = [
                sequence, event.kind.rawValue, event.at.timeIntervalSince1970, event.message,
                try json(event.attributes),
            ]
            try db.execute(sql: RowWriter.insertEvent, arguments: StatementArguments(values))
        }
    }

    private static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
