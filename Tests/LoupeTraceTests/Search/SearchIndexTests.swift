import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import PropertyBased
@testable import LoupeTestSupport
import Testing

@Suite("The search index gives candidates, and filters answer as without it")
struct SearchIndexTests {
    // MARK: Trigrams a regex requires

    static func trigrams(_ source: String, ignoresCase: Bool = false) throws -> [String] {
        try TextPattern(source, ignoresCase: ignoresCase).indexTrigrams
    }

    @Test("a regex requires the trigrams of the literal runs every match consumes, and no others")
    func requiredTrigrams() throws {
        #expect(try Self.trigrams("Order") == ["der", "ord", "rde"])
        #expect(try Self.trigrams("ab") == [])
        #expect(try Self.trigrams("abc.def") == ["abc", "def"])
        #expect(try Self.trigrams("abc|def") == [])
        #expect(try Self.trigrams("x(abcd)?y") == [])
        #expect(try Self.trigrams("(abcd)+") == ["abc", "bcd"])
        #expect(try Self.trigrams("(abc)(def)") == ["abc", "bcd", "cde", "def"])
        #expect(try Self.trigrams("ab[c]de") == ["abc", "bcd", "cde"])  // a class of one is a literal
        #expect(try Self.trigrams("ab[cx]de") == [])
        #expect(try Self.trigrams("\\Qa.b\\E") == ["a.b"])
        #expect(try Self.trigrams("^abc$") == ["abc"])
        #expect(try Self.trigrams("caf\u{E9}s") == ["caf"])  // only printable ASCII trigrams
        #expect(try Self.trigrams("a\"b\\\\c") == ["\"b\\", "a\"b", "b\\c"])
        // Caseless, `i` matches the dotless `ı`, which SQLite's folding keeps apart: no trigram holds it.
        #expect(try Self.trigrams("mining", ignoresCase: true) == [])
        #expect(try Self.trigrams("(?i)token") == ["ken", "oke", "tok"])
        #expect(try Self.trigrams("mining") == ["ing", "ini", "min", "nin"])
        #expect(SearchIndex.query(["a\"b", "abc"]) == "\"a\"\"b\" AND \"abc\"")
    }

    @Test("every scalar a caseless ASCII letter matches is folded to that letter by the index, or the letter is left out")
    func foldingAgrees() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts5(text, content='', tokenize='trigram', detail=none)")
            var row: Int64 = 0
            for value in UInt32(0x80)...0x10FFFF {
                guard let scalar = Unicode.Scalar(value), RegexUnicode.foldKey(scalar) < 0x80 else { continue }
                let letter = RegexUnicode.foldKey(scalar)
                guard RegexTrigrams.indexable(letter, caseless: true) else { continue }
                row += 1
                try db.execute(sql: "INSERT INTO t(rowid, text) VALUES (?, ?)", arguments: [row, "q\(scalar)z"])
                let ascii = "q" + String(UnicodeScalar(UInt8(letter))) + "z"
                let found = try Int64.fetchAll(db, sql: "SELECT rowid FROM t WHERE t MATCH ?", arguments: ["\"\(ascii)\""])
                #expect(found.contains(row), "U+\(String(value, radix: 16)) folds to \(ascii) in filters, not in the index")
            }
            #expect(row > 0)
        }
    }

    // MARK: Answers with and without the index

    static let pieces: [[UInt8]] = [
        "order", "Order", "ORDER", "warehouse", "k", "K", "\u{212A}", "s", "S", "\u{17F}", "i", "I", "\u{131}", "\u{E9}",
        "e\u{301}", " ", "\n", "\r\n", "\"", "\\", ": ", "{", "}", "abc", "ABC", "x1y", "ok", "Kit", "inv", "INV",
        "\u{FFFD}", "\u{65E5}\u{672C}", "aaa", "a.b", "token", "Bearer", "/v1/", "?q=", "%20",
    ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xA9], [0xC3, 0xA9, 0xA9], [0xE2, 0x82], [0x80], [0x00]]

    static let regexPieces = [
        "order", "Order", "ORDER", "warehouse", "k", "K", "\u{212A}", "s", "\u{17F}", "i", "I", "\u{131}", "\u{E9}", " ",
        "abc", "ABC", "x1y", "ok", "Kit", "inv", "token", "aaa", "a.b", ": ", "/v1/", "\\n", "\\\"", "\\\\", ".", ".*",
        "(", ")", "|", "?", "+", "(?i)", "\\b", "^", "$", "[a-z]", "{2}", "\\d", "\\Q.\\E", "\u{FFFD}",
    ]

    static let bodies = Gen<[UInt8]?>.element(of: pieces).map { $0 ?? [] }.array(of: 0...14).map { Data($0.joined()) }
    static let texts = Gen<String?>.element(of: regexPieces.filter { !["(", ")", "|", "?", "+", "{2}"].contains($0) && !$0.hasPrefix("\\") })
        .map { $0 ?? "" }.array(of: 0...5).map { $0.joined() }
    static let patterns = Gen<String?>.element(of: regexPieces).map { $0 ?? "" }.array(of: 1...6).map { $0.joined() }
    static let kinds = Gen.int(in: 0...8)
    static let corpus = zip(bodies.array(of: 2...10), texts.array(of: 2...10), Gen.int(in: 0...5), Gen.int(in: 0...7))

    /// Exchanges from generated bodies and texts; with `big`, one response body and one stream message longer than
    /// the index's cap, whose tails only the scan can find. Every third exchange carries a stream of messages made
    /// from the bodies (kinds in turn, one message with no payload), every other one an error text.
    static func exchanges(_ bodies: [Data], _ texts: [String], big: Bool) -> [TraceExchange] {
        bodies.enumerated().map { index, body in
            let text = texts[index % texts.count]
            var response = body
            if big && index == 0 { response = Data(repeating: 0x7A, count: SearchIndex.bodyCap) + body }
            var stream: TraceStream?
            if index % 3 == 2 {
                let other = bodies[(index + 1) % bodies.count]
                var payloads = [other, Data(body.reversed()), Data()]
                if big { payloads.append(Data(repeating: 0x79, count: SearchIndex.bodyCap) + body) }
                let kinds: [ExchangeStreamKind] = [.eventStream, .webSocket, .grpc]
                stream = TraceStream(kind: kinds[index % kinds.count], messages: payloads.enumerated().map { place, payload in
                    TraceMessage(index: place * 2, direction: place % 2 == 0 ? .received : .sent,
                                 at: Date(timeIntervalSince1970: 1_700_000_000), type: "message", size: payload.count, payload: payload)
                }, receivedCount: payloads.count)
            }
            return TraceExchange(
                id: UUID(), operation: "op", method: "GET", url: "https://h.test/" + text,
                startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                outcome: index % 2 == 1 ? .transportError : .success, status: 200,
                error: index % 2 == 1 ? String(decoding: body, as: UTF8.self) + " " + text : nil,
                requestHeaders: [TraceHeader(name: "X-Note", value: text)],
                requestBody: index % 3 == 0 ? nil : TraceBody(data: Data(body.reversed()), size: body.count, isTruncated: false),
                responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain"), TraceHeader(name: text, value: "v")],
                responseBody: index % 4 == 1 ? nil : TraceBody(data: response, size: response.count, isTruncated: false),
                stream: stream)
        }
    }

    /// A writer that indexes what it wrote only when asked (``SearchIndexer/indexAll()``) or when it closes, so
    /// that tests choose which rows wait above the mark.
    static func writer(_ path: String) throws -> SQLiteTraceStore {
        try SQLiteTraceStore(path: path, readOnly: false, bounds: nil, pruneEvery: 10_000, now: Date.init, indexing: .onClose,
                             openSharedReader: { try DatabasePool(path: $0, configuration: $1) })
    }

    /// A store holding `exchanges`, its older half written as a store from before the index would hold them (the
    /// index emptied and its mark raised over them), so both the index and the scan of uncovered rows are tried.
    /// Stages 4 and 5 leave the newer half written and not indexed yet (above the end mark), as a writer has it
    /// between its index runs; stage 5 has indexed the first two rows of that half, as a run stopped by its limit.
    static func store(_ exchanges: [TraceExchange], in folder: TemporaryFolder, stage: Int) throws -> SQLiteTraceStore {
        let store = try writer(folder.file("s\(UUID().uuidString).sqlite"))
        let half = exchanges.count / 2
        try store.write(Array(exchanges[..<half]))
        try store.searchIndexer?.indexAll()
        if (1...3).contains(stage) { try forgetIndex(store, through: nil) }
        try store.write(Array(exchanges[half...]))
        if stage < 4 { try store.searchIndexer?.indexAll() }
        if stage == 5 { _ = try store.pool.write { try SearchIndex.indexNewer(in: $0, rowLimit: 2, byteLimit: .max) } }
        // An exchange written again replaces its row; the oldest row pruned: the triggers take both out of the index
        // when it holds them, and leave it alone when it does not yet.
        try store.write([exchanges[exchanges.count - 1]])
        if stage < 4 { try store.searchIndexer?.indexAll() }
        try store.pool.write { try $0.execute(sql: "DELETE FROM exchange WHERE sequence = (SELECT MIN(sequence) FROM exchange)") }
        if stage == 2 { _ = try store.pool.write { try SearchIndex.indexOlder(in: $0, limit: 2) } }
        if stage == 3 { try store.buildSearchIndex(batch: 1) }
        return store
    }

    /// Empties the index and raises its start mark over every row (or `through`), as an upgraded older store has it.
    static func forgetIndex(_ store: SQLiteTraceStore, through: Int64?) throws {
        try store.pool.write { db in
            for table in SearchIndex.Table.allCases.map(\.rawValue) + ["search_messages"] {
                try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('delete-all')")
            }
            try db.execute(sql: "DELETE FROM search_capped")
            try db.execute(sql: "DELETE FROM search_message_capped")
            let mark = try through ?? Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(sequence), 0) FROM exchange") ?? 0
            try db.execute(sql: "UPDATE store_setting SET value = ? WHERE key = ?", arguments: [mark, SearchIndex.startKey])
            // The start mark never passes the end mark: the rows between them are the ones the index holds.
            try db.execute(sql: "UPDATE store_setting SET value = max(value, ?) WHERE key = ?", arguments: [mark, SearchIndex.endKey])
        }
    }

    static func filter(_ kind: Int, _ source: String) -> TraceFilter? {
        let ignoresCase = kind >= 3
        guard let pattern = try? TextPattern(source, ignoresCase: ignoresCase) else { return nil }
        if kind >= 7 { return try? TraceFilter.parse("~any " + TraceFilterPrinter.quote(source)) }
        return [TraceFilter.body(pattern), .requestBody(pattern), .responseBody(pattern), .message(pattern), .header(pattern),
                .url(pattern), .errorText(pattern)][kind]
    }

    @Test("random bodies, terms and regexes: the indexed store answers exactly as the exact matcher over every row")
    func sameAnswers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        await propertyCheck(count: 120, input: Self.corpus, zip(Self.kinds, Self.patterns).array(of: 1...8)) { corpus, terms in
            let (bodies, texts, stage, big) = corpus
            let exchanges = Self.exchanges(bodies, texts, big: big == 0)
            let store = try Self.store(exchanges, in: folder, stage: stage)
            defer { try? store.close() }
            #expect(store.hasSearchIndex)
            let stored = try store.exchanges(matching: nil, limit: 1_000)
            if stage >= 4 { #expect(try store.pool.read(SearchIndex.newerCount) > 0) }
            for (kind, source) in terms {
                // A literal drawn from the corpus itself too, so that most terms find something.
                for candidate in [source, NSRegularExpression.escapedPattern(for: texts[kind % texts.count])] {
                    guard let filter = Self.filter(kind, candidate) else { continue }
                    let expected = stored.filter(filter.matches).map(\.id)
                    #expect(try store.summaries(matching: filter, limit: 1_000).map(\.id) == expected, "\(filter)")
                    #expect(try store.exchangeCount(ExchangeQuery(filter: filter)) == expected.count, "\(filter)")
                    let negated = TraceFilter.not(filter)
                    #expect(try store.exchangeCount(ExchangeQuery(filter: negated)) == stored.count - expected.count, "\(negated)")
                }
            }
        }
    }

    // MARK: The index is read, kept and built

    static func simpleStore(_ folder: TemporaryFolder, count: Int = 6) throws -> (SQLiteTraceStore, [TraceExchange]) {
        let exchanges = Self.exchanges((0..<count).map { Data("body \($0) warehouse-\($0)".utf8) }, ["path"], big: false)
        let store = try writer(folder.file("simple.sqlite"))
        try store.write(exchanges)
        try store.searchIndexer?.indexAll()
        return (store, exchanges)
    }

    @Test("a body filter reads the index's candidates: with the index emptied but its mark left at 0, it finds nothing")
    func indexIsRead() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, _) = try Self.simpleStore(folder)
        defer { try? store.close() }
        let filter = try TraceFilter.parse("~bs warehouse-3")
        #expect(try store.summaries(matching: filter, limit: 10).count == 1)
        try Self.forgetIndex(store, through: 0)
        // Only a store that believed a lying index could miss the row; a scan finds it.
        #expect(try store.summaries(matching: filter, limit: 10).count == 0)
        // A regex with no certain trigram scans, index or not.
        #expect(try store.summaries(matching: TraceFilter.parse("~bs 'warehouse-3|nothing'"), limit: 10).count == 1)
    }

    @Test("a v10 store: a viewer reads it unchanged by scanning; a writer adds the index above its rows; loupe index covers them")
    func upgrade() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("v10.sqlite")
        let exchanges = Self.exchanges((0..<5).map { Data("old body \($0) needle\($0)".utf8) }, ["p"], big: false)
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
            try SQLiteSchema.migrator.migrate(queue, upTo: "v10")
            try queue.write { db in
                var inserter = try ExchangeInserter(db, storedAt: Date())
                try inserter.insert(contentsOf: exchanges)
                try inserter.finish()
            }
            try queue.close()
        }
        let before = try FileSnapshot(path)
        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(!viewer.hasSearchIndex)
        #expect(try viewer.summaries(matching: TraceFilter.parse("~b needle3"), limit: 10).count == 1)
        try viewer.close()
        #expect(try FileSnapshot(path).bytes == before.bytes)

        let writer = try Self.writer(path)
        defer { try? writer.close() }
        #expect(writer.hasSearchIndex)
        #expect(try writer.unindexedCount() == 5)
        try writer.write(Self.exchanges([Data("new needle9".utf8)], ["p"], big: false))
        #expect(try writer.unindexedCount() == 6)  // the new row waits for the writer's next run
        // The old rows' response bodies (four of five: one has none) and the new one's.
        #expect(try writer.summaries(matching: TraceFilter.parse("~b needle"), limit: 10).count == 5)
        var seen: [SQLiteTraceStore.SearchIndexProgress] = []
        // `loupe index` takes the waiting row first, then the old ones.
        #expect(try writer.buildSearchIndex(batch: 2) { seen.append($0) } == 6)
        #expect(seen.map(\.remaining) == [5, 3, 1, 0] && seen.last?.indexed == 6)
        #expect(try writer.unindexedCount() == 0)
        #expect(try writer.buildSearchIndex() == 0)
        // The old rows' response bodies (four of five: one has none) and the new one's.
        #expect(try writer.summaries(matching: TraceFilter.parse("~b needle"), limit: 10).count == 5)
        // Now the index alone answers: emptied, it would miss the old rows too.
        try Self.forgetIndex(writer, through: 0)
        #expect(try writer.summaries(matching: TraceFilter.parse("~b needle"), limit: 10).count == 0)
    }

    @Test("loupe redact's rewrite and pruning keep the index true: a redacted secret is no longer a candidate")
    func updatesKeepIndex() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, _) = try Self.simpleStore(folder)
        defer { try? store.close() }
        try store.pool.write { try $0.execute(sql: "UPDATE exchange SET response_body = CAST('gone' AS BLOB)") }
        let candidates = try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_response_body WHERE search_response_body MATCH '\"war\"'")
        }
        #expect(candidates == 0)
        #expect(try store.summaries(matching: TraceFilter.parse("~bs gone"), limit: 10).count == 4)
    }

    @Test("a v11 store: the upgrade indexes the messages and error texts of the rows v11 covered; VACUUM and pruning keep them true")
    func upgradeFromV11() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("v11.sqlite")
        let exchanges = Self.exchanges((0..<6).map { Data("old body \($0) needle\($0)".utf8) }, ["p"], big: false)
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
            try SQLiteSchema.migrator.migrate(queue, upTo: "v11")
            try queue.write { db in
                var inserter = try ExchangeInserter(db, storedAt: Date())
                try inserter.insert(contentsOf: exchanges)
                try inserter.finish()
            }
            try queue.close()
        }
        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(!viewer.hasSearchIndex)  // v11 has no index of messages: a viewer scans
        #expect(try viewer.exchangeCount(ExchangeQuery(filter: TraceFilter.parse("~msg needle3"))) == 1)
        try viewer.close()

        let writer = try SQLiteTraceStore(path: path, bounds: nil)
        defer { try? writer.close() }
        #expect(writer.hasSearchIndex)
        #expect(try writer.unindexedCount() == 0)
        // Exchanges 2 and 5 carry streams: their messages hold bodies 3 and 0 and their own reversed.
        #expect(try writer.summaries(matching: TraceFilter.parse("~msg needle3"), limit: 10).count == 1)
        #expect(try writer.summaries(matching: TraceFilter.parse("~msg needle"), limit: 10).count == 2)
        #expect(try writer.summaries(matching: TraceFilter.parse("~err NEEDLE"), limit: 10).count == 3)
        #expect(try writer.summaries(matching: TraceFilter.parse("~any needle0"), limit: 10).count == 2)
        try writer.pool.write { try $0.execute(sql: "DELETE FROM exchange WHERE sequence = 1") }
        try writer.vacuum()
        #expect(try writer.summaries(matching: TraceFilter.parse("~msg needle"), limit: 10).count == 2)
        // The index alone answered: emptied, it misses them.
        try Self.forgetIndex(writer, through: 0)
        #expect(try writer.summaries(matching: TraceFilter.parse("~msg needle"), limit: 10).count == 0)
        #expect(try writer.summaries(matching: TraceFilter.parse("~err needle"), limit: 10).count == 0)
    }
}
