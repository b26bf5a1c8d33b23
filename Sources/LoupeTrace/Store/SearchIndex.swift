import Foundation
import GRDB

/// The store's full-text index (schema v11): SQLite FTS5 tables with the `trigram` tokenizer over what filters
/// search. Triggers on `exchange` keep it true when a row it holds is deleted or rewritten (`loupe redact`, pruning,
/// an id written again); new rows are added by the writer in batches (below), and no viewer ever writes it.
///
/// Four tables, one per text a filter term reads: `search_url` (the URL), `search_headers` (request and response
/// header lines, `Name: value` as `~h` reads them), `search_request_body` and `search_response_body` (the stored
/// body as text, its first ``bodyCap`` bytes). They are contentless (`content=''`: the text is the exchange's own,
/// not stored twice) and `detail=none` (which rows hold a trigram, not where), the smallest form; a query is a
/// conjunction of single trigrams, and the filter's own matcher confirms every candidate, so answers never depend
/// on the index. Rows whose body passed the cap, or whose text holds a NUL (where the tokenizer stops), are listed in `search_capped` and are always candidates.
///
/// Rows at or below `store_setting.search_start` are not indexed (a store upgraded from v10 keeps its rows as they
/// were; `loupe index` indexes them, newest first, lowering the mark as it goes); filters scan those.
///
/// Since schema v13 rows are not indexed as they are written either: rows above `store_setting.search_end` wait,
/// and the writer indexes them in batches off its write transaction (``indexNewer(in:rowLimit:byteLimit:)``, when
/// ``SearchIndexPolicy`` says so, and when the store closes), raising the mark. Filters scan those rows too, so no
/// answer depends on how far indexing has got. Deletes and rewrites of indexed rows still go through triggers: they
/// are rare (pruning, `loupe redact`, an id written again) and must take the old text out of the index at once.
package enum SearchIndex {
    /// The bytes of each body the index reads; a longer body's row is a candidate for every body search.
    package static let bodyCap = 65_536

    /// The `store_setting` key below which (inclusive) rows are not indexed.
    package static let startKey = "search_start"

    /// The `store_setting` key above which rows are not indexed yet (schema v13): the newest row indexed.
    package static let endKey = "search_end"

    /// The rows the index does not cover, as SQL over `exchange.sequence`: those at or below the start mark, and
    /// those above the end mark. A store without the end mark (v12, read by a viewer) indexed every row as it was
    /// written.
    package static let uncoveredSequences = "SELECT sequence FROM exchange WHERE sequence <= "
        + "IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0) UNION ALL SELECT sequence FROM exchange "
        + "WHERE sequence > IFNULL((SELECT value FROM store_setting WHERE key = '\(endKey)'), \(Int64.max))"

    /// The tables, whose names filters read.
    package enum Table: String, CaseIterable, Sendable {
        case url = "search_url"
        case headers = "search_headers"
        case requestBody = "search_request_body"
        case responseBody = "search_response_body"
        /// The exchange's error text (schema v12); only rows with one have an entry.
        case error = "search_error"

        /// The tables schema v11 made; v12 added ``error``.
        static let v11: [Table] = [.url, .headers, .requestBody, .responseBody]

        /// The text indexed for the row `row` (`new` or `old` in a trigger, `exchange` in a query).
        func text(_ row: String) -> String {
            switch self {
            case .error: "\(row).error"
            case .url: "\(row).url"
            case .headers: "\(SearchIndex.headerLines("\(row).request_headers")) || char(10) || \(SearchIndex.headerLines("\(row).response_headers"))"
            case .requestBody: "CAST(substr(\(row).request_body, 1, \(SearchIndex.bodyCap)) AS TEXT)"
            case .responseBody: "CAST(substr(\(row).response_body, 1, \(SearchIndex.bodyCap)) AS TEXT)"
            }
        }
    }

    /// A stored header list as `Name: value` lines (what `FilterText.headerLines` makes of it), or `''` when the
    /// JSON is not valid (a hand-edited row must not fail the write that indexes it).
    static func headerLines(_ column: String) -> String {
        "IFNULL(CASE WHEN json_valid(\(column)) THEN (SELECT group_concat(json_extract(value, '$.name') || ': ' || "
            + "json_extract(value, '$.value'), char(10)) FROM json_each(\(column))) END, '')"
    }

    private static func add(_ row: String, _ tables: [Table]) -> String {
        tables.map { table in
            // Most exchanges have no error: they get no entry, rather than an empty one.
            table == .error
                ? "INSERT INTO \(table.rawValue)(rowid, text) SELECT \(row).sequence, \(row).error WHERE \(row).error IS NOT NULL;"
                : "INSERT INTO \(table.rawValue)(rowid, text) VALUES (\(row).sequence, \(table.text(row)));"
        }.joined(separator: "\n")
            + "\nINSERT INTO search_capped(sequence) SELECT \(row).sequence WHERE \(partial(row, tables));"
    }

    /// Whether the index holds only part of the row's text: a body past the cap, or a NUL anywhere (the trigram
    /// tokenizer stops at one, and the filters read on past it).
    private static func partial(_ row: String, _ tables: [Table]) -> String {
        let bodies = ["request_body", "response_body"].map { column in
            "IFNULL(length(\(row).\(column)), 0) > \(bodyCap) OR IFNULL(instr(CAST(\(row).\(column) AS BLOB), X'00'), 0) > 0"
        }
        let texts = ["instr(CAST(\(row).url AS BLOB), X'00') > 0"]
            + ["request_headers", "response_headers"].map { "IFNULL(instr(\(row).\($0), '\\u0000'), 0) > 0" }
            + (tables.contains(.error) ? ["IFNULL(instr(CAST(\(row).error AS BLOB), X'00'), 0) > 0"] : [])
        return (bodies + texts).joined(separator: " OR ")
    }

    private static func remove(_ row: String, _ tables: [Table]) -> String {
        tables.map { table in
            table == .error
                ? "INSERT INTO \(table.rawValue)(\(table.rawValue), rowid, text) SELECT 'delete', \(row).sequence, \(row).error WHERE \(row).error IS NOT NULL;"
                : "INSERT INTO \(table.rawValue)(\(table.rawValue), rowid, text) VALUES ('delete', \(row).sequence, \(table.text(row)));"
        }.joined(separator: "\n")
            + "\nDELETE FROM search_capped WHERE sequence = \(row).sequence;"
    }

    /// A stream message's text as the index reads it: its payload's first ``bodyCap`` bytes.
    static func messageText(_ row: String) -> String {
        "CAST(substr(\(row).payload, 1, \(bodyCap)) AS TEXT)"
    }

    /// Whether the index holds only part of a message's payload (past the cap, or a NUL).
    static func messagePartial(_ row: String) -> String {
        "IFNULL(length(\(row).payload), 0) > \(bodyCap) OR IFNULL(instr(CAST(\(row).payload AS BLOB), X'00'), 0) > 0"
    }

    private static func addMessage(_ row: String) -> String {
        """
        INSERT INTO search_messages(rowid, text) VALUES (\(row).rowid, \(messageText(row)));
        INSERT INTO search_message_capped(message, sequence) SELECT \(row).rowid, \(row).exchange_sequence WHERE \(messagePartial(row));
        """
    }

    private static func removeMessage(_ row: String) -> String {
        """
        INSERT INTO search_messages(search_messages, rowid, text) VALUES ('delete', \(row).rowid, \(messageText(row)));
        DELETE FROM search_message_capped WHERE message = \(row).rowid;
        """
    }

    private static func coveredMessage(_ row: String) -> String {
        "\(row).exchange_sequence > IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0)"
    }

    private static func exchangeTriggers(_ tables: [Table]) -> String {
        """
        CREATE TRIGGER search_add AFTER INSERT ON exchange BEGIN
        \(add("new", tables))
        END;
        CREATE TRIGGER search_remove AFTER DELETE ON exchange WHEN \(covered("old")) BEGIN
        \(remove("old", tables))
        END;
        CREATE TRIGGER search_change AFTER UPDATE OF url, request_headers, response_headers, request_body, response_body\(tables.contains(.error) ? ", error" : "")
            ON exchange WHEN \(covered("old")) BEGIN
        \(remove("old", tables))
        \(add("new", tables))
        END;
        """
    }

    private static func covered(_ row: String) -> String {
        "\(row).sequence > IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0)"
    }

    /// Whether the index holds the row (schema v13): between the marks. A row above the end mark is not in it yet,
    /// and taking it out would corrupt a contentless table.
    private static func indexed(_ row: String, sequence: String = "sequence") -> String {
        "\(row).\(sequence) > IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0) AND "
            + "\(row).\(sequence) <= IFNULL((SELECT value FROM store_setting WHERE key = '\(endKey)'), 0)"
    }

    /// Schema v11: the tables, the mark (every row already in the store is below it) and the triggers.
    static var v11: String {
        let tables = Table.v11.map {
            "CREATE VIRTUAL TABLE \($0.rawValue) USING fts5(text, content='', tokenize='trigram', detail=none);"
        }.joined(separator: "\n")
        return """
            \(tables)
            CREATE TABLE search_capped (sequence INTEGER PRIMARY KEY);
            INSERT OR REPLACE INTO store_setting (key, value) VALUES ('\(startKey)', (SELECT IFNULL(MAX(sequence), 0) FROM exchange));
            \(exchangeTriggers(Table.v11))
            PRAGMA user_version = 11;
            """
    }

    /// Schema v12: error texts (`search_error`, keyed like the others by the exchange's sequence) and stream messages
    /// (`search_messages`, keyed by the `message` row's rowid, which VACUUM keeps because the table has an index;
    /// a message past the cap or holding a NUL is listed in `search_message_capped` and is always a candidate).
    /// The exchange triggers are made again with the error text; the rows v11 already covers (above the mark) get
    /// their error texts and messages indexed here, so that the mark keeps meaning "every row above is indexed".
    static var v12: String {
        let covered = "sequence > IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0)"
        return """
            CREATE VIRTUAL TABLE search_error USING fts5(text, content='', tokenize='trigram', detail=none);
            CREATE VIRTUAL TABLE search_messages USING fts5(text, content='', tokenize='trigram', detail=none);
            CREATE TABLE search_message_capped (message INTEGER PRIMARY KEY, sequence INTEGER NOT NULL);
            DROP TRIGGER search_add;
            DROP TRIGGER search_remove;
            DROP TRIGGER search_change;
            \(exchangeTriggers(Table.allCases))
            CREATE TRIGGER search_message_add AFTER INSERT ON message WHEN \(coveredMessage("new")) BEGIN
            \(addMessage("new"))
            END;
            CREATE TRIGGER search_message_remove AFTER DELETE ON message WHEN \(coveredMessage("old")) BEGIN
            \(removeMessage("old"))
            END;
            CREATE TRIGGER search_message_change AFTER UPDATE OF payload ON message WHEN \(coveredMessage("old")) BEGIN
            \(removeMessage("old"))
            \(addMessage("new"))
            END;
            INSERT INTO search_error(rowid, text) SELECT sequence, error FROM exchange WHERE error IS NOT NULL AND \(covered);
            INSERT OR IGNORE INTO search_capped(sequence) SELECT sequence FROM exchange
                WHERE \(covered) AND IFNULL(instr(CAST(error AS BLOB), X'00'), 0) > 0;
            \(indexMessages(where: "exchange_\(covered)"))
            PRAGMA user_version = 12;
            """
    }

    /// Schema v13: no row is indexed in the transaction that writes it. The insert triggers go; the delete and
    /// update triggers stay for the rows the index holds (between the marks); `search_end` marks the newest row
    /// indexed, every row so far (v12's triggers indexed each as it was written).
    static var v13: String {
        let tables = Table.allCases
        return """
            DROP TRIGGER search_add;
            DROP TRIGGER search_remove;
            DROP TRIGGER search_change;
            DROP TRIGGER search_message_add;
            DROP TRIGGER search_message_remove;
            DROP TRIGGER search_message_change;
            CREATE TRIGGER search_remove AFTER DELETE ON exchange WHEN \(indexed("old")) BEGIN
            \(remove("old", tables))
            END;
            CREATE TRIGGER search_change AFTER UPDATE OF url, request_headers, response_headers, request_body, response_body, error
                ON exchange WHEN \(indexed("old")) BEGIN
            \(remove("old", tables))
            \(add("new", tables))
            END;
            CREATE TRIGGER search_message_remove AFTER DELETE ON message WHEN \(indexed("old", sequence: "exchange_sequence")) BEGIN
            \(removeMessage("old"))
            END;
            CREATE TRIGGER search_message_change AFTER UPDATE OF payload ON message WHEN \(indexed("old", sequence: "exchange_sequence")) BEGIN
            \(removeMessage("old"))
            \(addMessage("new"))
            END;
            INSERT OR REPLACE INTO store_setting (key, value) VALUES ('\(endKey)', (SELECT IFNULL(MAX(sequence), 0) FROM exchange));
            PRAGMA user_version = 13;
            """
    }

    /// Indexes the messages of the exchanges `condition` (over `message`) picks.
    private static func indexMessages(where condition: String) -> String {
        """
        INSERT INTO search_messages(rowid, text) SELECT rowid, \(messageText("message")) FROM message WHERE \(condition);
        INSERT INTO search_message_capped(message, sequence) SELECT rowid, exchange_sequence FROM message
            WHERE (\(condition)) AND (\(messagePartial("message")));
        """
    }

    /// Whether the store read through `db` has the whole index (v12 or later). A v11 store read by a viewer has
    /// no index of messages and error texts; its filters scan, as a v10 store's do, until a writer upgrades it.
    package static func exists(in db: Database) throws -> Bool {
        try db.tableExists("search_messages")
    }

    /// The rows not yet indexed: those at or below the start mark, and those above the end mark.
    package static func unindexedCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(uncoveredSequences))") ?? 0
    }

    /// The rows written and not indexed yet: those above the end mark (0 on a store without one).
    package static func newerCount(in db: Database) throws -> Int {
        guard let end = try endMark(in: db) else { return 0 }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM exchange WHERE sequence > ?", arguments: [end]) ?? 0
    }

    /// The end mark, or `nil` on a store from before v13.
    static func endMark(in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT value FROM store_setting WHERE key = ?", arguments: [endKey])
    }

    /// Indexes the oldest rows above the end mark, at most `rowLimit` of them and (past the first) at most about
    /// `byteLimit` stored bytes, so that one run holds the write lock briefly whatever the bodies; raises the mark
    /// over them, in the caller's transaction. One statement per table for the lot: FTS5 then writes one segment
    /// per run rather than per row. Returns how many rows it indexed, and whether it reached the newest row.
    package static func indexNewer(in db: Database, rowLimit: Int, byteLimit: Int) throws -> (rows: Int, caughtUp: Bool) {
        guard let end = try endMark(in: db) else { return (0, true) }
        // The storage index holds sequence and size: the batch is chosen without reading a row.
        let sizes = try Row.fetchCursor(db, sql: """
            SELECT sequence, stored_bytes FROM exchange INDEXED BY exchange_storage WHERE sequence > ? ORDER BY sequence LIMIT ?
            """, arguments: [end, max(1, rowLimit) + 1])
        var (last, rows, bytes, more) = (end, 0, 0, false)
        while let row = try sizes.next() {
            let sequence: Int64 = row[0]
            let size = max(0, (row[1] as Int?) ?? 0)
            if rows == max(1, rowLimit) || (rows > 0 && bytes + size > byteLimit) {
                more = true
                break
            }
            (last, rows, bytes) = (sequence, rows + 1, bytes + size)
        }
        guard rows > 0 else { return (0, true) }
        let range = "FROM exchange WHERE sequence > \(end) AND sequence <= \(last)"
        for table in Table.allCases {
            let some = table == .error ? " AND error IS NOT NULL" : ""
            try db.execute(sql: "INSERT INTO \(table.rawValue)(rowid, text) SELECT sequence, \(table.text("exchange")) \(range)\(some)")
        }
        try db.execute(sql: "INSERT INTO search_capped(sequence) SELECT sequence \(range) AND (\(partial("exchange", Table.allCases)))")
        try db.execute(sql: indexMessages(where: "exchange_sequence > \(end) AND exchange_sequence <= \(last)"))
        try db.execute(sql: "UPDATE store_setting SET value = ? WHERE key = ?", arguments: [last, endKey])
        return (rows, !more)
    }

    /// Indexes up to `limit` of the newest rows not yet indexed and lowers the mark below them, in the caller's
    /// transaction; returns how many rows it indexed (0 when none was left).
    package static func indexOlder(in db: Database, limit: Int) throws -> Int {
        let start = try Int64.fetchOne(db, sql: "SELECT value FROM store_setting WHERE key = ?", arguments: [startKey]) ?? 0
        guard start > 0 else { return 0 }
        let rows = try Int64.fetchAll(db, sql: "SELECT sequence FROM exchange WHERE sequence <= ? ORDER BY sequence DESC LIMIT ?",
                                      arguments: [start, max(1, limit)])
        // Below the lowest row of this step, or 0 when it took the last ones.
        let newStart = rows.count < max(1, limit) ? 0 : (rows.last ?? 1) - 1
        let range = "FROM exchange WHERE sequence > \(newStart) AND sequence <= \(start)"
        for table in Table.allCases {
            let some = table == .error ? " AND error IS NOT NULL" : ""
            try db.execute(sql: "INSERT INTO \(table.rawValue)(rowid, text) SELECT sequence, \(table.text("exchange")) \(range)\(some)")
        }
        try db.execute(sql: """
            INSERT INTO search_capped(sequence) SELECT sequence \(range) AND (\(partial("exchange", Table.allCases)))
            """)
        try db.execute(sql: indexMessages(where: "exchange_sequence > \(newStart) AND exchange_sequence <= \(start)"))
        try db.execute(sql: "UPDATE store_setting SET value = ? WHERE key = ?", arguments: [newStart, startKey])
        return rows.count
    }

    /// An FTS5 query asking for every one of `trigrams` (each a phrase of one token: `detail=none` has no longer
    /// phrases), or `nil` when there is none.
    package static func query(_ trigrams: [String]) -> String? {
        guard !trigrams.isEmpty else { return nil }
        return trigrams.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
    }
}

extension SQLiteTraceStore {
    /// How far the search index has got: the rows it covers and those still to index (`loupe index`).
    public struct SearchIndexProgress: Sendable, Equatable {
        /// Rows indexed so far in this call.
        public var indexed: Int
        /// Rows left to index.
        public var remaining: Int
    }

    /// Indexes the rows the search index does not cover yet (those a writer left waiting, then those of a store
    /// upgraded from an older Loupe, newest first),
    /// `batch` rows to a transaction so the recorder and viewers are never held for long, calling `progress` after
    /// each; returns how many rows it indexed. Writable stores only (the index lives in the file).
    @discardableResult
    public func buildSearchIndex(batch: Int = 2_000, progress: (SearchIndexProgress) -> Void = { _ in }) throws -> Int {
        guard !isReadOnly else { throw TraceStoreError.readOnly(path, "opened read-only") }
        var total = 0
        while true {
            let (done, remaining) = try guarded {
                try pool.write { db in
                    // The rows written and waiting first (a writer that ended without closing left them), then the
                    // older ones.
                    var done = try SearchIndex.indexNewer(in: db, rowLimit: batch, byteLimit: SearchIndexer.byteLimit).rows
                    if done == 0 { done = try SearchIndex.indexOlder(in: db, limit: batch) }
                    return (done, done == 0 ? 0 : try SearchIndex.unindexedCount(in: db))
                }
            }
            total += done
            guard done > 0 else { return total }
            progress(SearchIndexProgress(indexed: total, remaining: remaining))
            if remaining == 0 { return total }
        }
    }

    /// The rows the search index does not cover yet (0 on a store with no index: see ``hasSearchIndex``).
    public func unindexedCount() throws -> Int {
        try guarded { try pool.read { try SearchIndex.exists(in: $0) ? SearchIndex.unindexedCount(in: $0) : 0 } }
    }
}
