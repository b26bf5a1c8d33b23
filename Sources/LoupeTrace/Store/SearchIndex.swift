import Foundation
import GRDB

/// The store's full-text index (schema v11): SQLite FTS5 tables with the `trigram` tokenizer over what filters
/// search, kept by triggers on `exchange` so that every write (the recorder's batches, the listener, HAR import,
/// `loupe redact`, pruning, an id written again) keeps it true in the same transaction, and no viewer ever writes it.
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
package enum SearchIndex {
    /// The bytes of each body the index reads; a longer body's row is a candidate for every body search.
    package static let bodyCap = 65_536

    /// The `store_setting` key below which (inclusive) rows are not indexed.
    package static let startKey = "search_start"

    /// The tables, whose names filters read.
    package enum Table: String, CaseIterable, Sendable {
        case url = "search_url"
        case headers = "search_headers"
        case requestBody = "search_request_body"
        case responseBody = "search_response_body"

        /// The text indexed for the row `row` (`new` or `old` in a trigger, `exchange` in a query).
        func text(_ row: String) -> String {
            switch self {
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

    private static func add(_ row: String) -> String {
        Table.allCases.map { "INSERT INTO \($0.rawValue)(rowid, text) VALUES (\(row).sequence, \($0.text(row)));" }
            .joined(separator: "\n")
            + "\nINSERT INTO search_capped(sequence) SELECT \(row).sequence WHERE \(partial(row));"
    }

    /// Whether the index holds only part of the row's text: a body past the cap, or a NUL anywhere (the trigram
    /// tokenizer stops at one, and the filters read on past it).
    private static func partial(_ row: String) -> String {
        let bodies = ["request_body", "response_body"].map { column in
            "IFNULL(length(\(row).\(column)), 0) > \(bodyCap) OR IFNULL(instr(CAST(\(row).\(column) AS BLOB), X'00'), 0) > 0"
        }
        let texts = ["instr(CAST(\(row).url AS BLOB), X'00') > 0"]
            + ["request_headers", "response_headers"].map { "IFNULL(instr(\(row).\($0), '\\u0000'), 0) > 0" }
        return (bodies + texts).joined(separator: " OR ")
    }

    private static func remove(_ row: String) -> String {
        Table.allCases.map { "INSERT INTO \($0.rawValue)(\($0.rawValue), rowid, text) VALUES ('delete', \(row).sequence, \($0.text(row)));" }
            .joined(separator: "\n")
            + "\nDELETE FROM search_capped WHERE sequence = \(row).sequence;"
    }

    private static func covered(_ row: String) -> String {
        "\(row).sequence > IFNULL((SELECT value FROM store_setting WHERE key = '\(startKey)'), 0)"
    }

    /// Schema v11: the tables, the mark (every row already in the store is below it) and the triggers.
    static var v11: String {
        let tables = Table.allCases.map {
            "CREATE VIRTUAL TABLE \($0.rawValue) USING fts5(text, content='', tokenize='trigram', detail=none);"
        }.joined(separator: "\n")
        return """
            \(tables)
            CREATE TABLE search_capped (sequence INTEGER PRIMARY KEY);
            INSERT OR REPLACE INTO store_setting (key, value) VALUES ('\(startKey)', (SELECT IFNULL(MAX(sequence), 0) FROM exchange));
            CREATE TRIGGER search_add AFTER INSERT ON exchange BEGIN
            \(add("new"))
            END;
            CREATE TRIGGER search_remove AFTER DELETE ON exchange WHEN \(covered("old")) BEGIN
            \(remove("old"))
            END;
            CREATE TRIGGER search_change AFTER UPDATE OF url, request_headers, response_headers, request_body, response_body
                ON exchange WHEN \(covered("old")) BEGIN
            \(remove("old"))
            \(add("new"))
            END;
            PRAGMA user_version = 11;
            """
    }

    /// Whether the store read through `db` has the index (v11 or later).
    package static func exists(in db: Database) throws -> Bool {
        try db.tableExists("search_capped")
    }

    /// The rows not yet indexed: those at or below the mark.
    package static func unindexedCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM exchange WHERE sequence <= IFNULL((SELECT value FROM store_setting WHERE key = ?), 0)
            """, arguments: [startKey]) ?? 0
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
            try db.execute(sql: "INSERT INTO \(table.rawValue)(rowid, text) SELECT sequence, \(table.text("exchange")) \(range)")
        }
        try db.execute(sql: """
            INSERT INTO search_capped(sequence) SELECT sequence \(range) AND (\(partial("exchange")))
            """)
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

    /// Indexes the rows the search index does not cover yet (a store upgraded from an older Loupe), newest first,
    /// `batch` rows to a transaction so the recorder and viewers are never held for long, calling `progress` after
    /// each; returns how many rows it indexed. Writable stores only (the index lives in the file).
    @discardableResult
    public func buildSearchIndex(batch: Int = 2_000, progress: (SearchIndexProgress) -> Void = { _ in }) throws -> Int {
        guard !isReadOnly else { throw TraceStoreError.readOnly(path, "opened read-only") }
        var total = 0
        while true {
            let (done, remaining) = try guarded {
                try pool.write { db in
                    let done = try SearchIndex.indexOlder(in: db, limit: batch)
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
