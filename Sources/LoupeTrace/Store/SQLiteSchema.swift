import Foundation
import GRDB

/// The tables of a SQLite trace store, their migrations, and the version checks made on open.
///
/// The version lives in `PRAGMA user_version` (readable by any SQLite tool, and by older Loupes deciding to stop)
/// and GRDB's migration table records which migrations ran. Times are REAL seconds since 1970 so plain SQL can
/// use `datetime(started_at, 'unixepoch')`; ids are upper-case UUID text; header lists and attributes are JSON.
enum SQLiteSchema {
    /// The newest schema this code knows.
    static let version = 13
    /// The migrations this code knows; a store that ran any other was migrated by a newer Loupe.
    static let knownMigrations: Set<String> = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13"]

    /// The migrations, with the defaults recorded as the bounds of a store migrated to v4.
    static var migrator: DatabaseMigrator { migrator(seeding: .default) }

    /// The migrations; `bounds` become the store's own when v4 runs (on a new store, or an older one upgraded).
    static func migrator(seeding bounds: TraceStoreBounds) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4") { db in
            try db.execute(sql: v4)
            try StoreSettings.writeBounds(bounds, in: db)
        }
        migrator.registerMigration("v5") { db in
            try db.execute(sql: v5)
        }
        migrator.registerMigration("v6") { db in
            try db.execute(sql: v6)
        }
        migrator.registerMigration("v7") { db in
            try db.execute(sql: v7)
        }
        migrator.registerMigration("v8") { db in
            try db.execute(sql: v8)
        }
        migrator.registerMigration("v9") { db in
            try db.execute(sql: v9)
        }
        migrator.registerMigration("v10") { db in
            try db.execute(sql: v10)
        }
        migrator.registerMigration("v11") { db in
            try db.execute(sql: SearchIndex.v11)
        }
        migrator.registerMigration("v12") { db in
            try db.execute(sql: SearchIndex.v12)
        }
        migrator.registerMigration("v13") { db in
            try db.execute(sql: SearchIndex.v13)
        }
        return migrator
    }

    /// Judges a store through a connection that cannot write: returns its schema version, or throws when the
    /// file is an SQLite database that Loupe did not write, or one written by a newer Loupe.
    ///
    /// A Loupe store has `PRAGMA user_version` 1 or more, an `exchange` table, and GRDB's migration table listing
    /// `v1`; a database from anything else is refused, whatever its `user_version` says.
    static func inspect(_ db: Database, path: String) throws -> Int {
        // Ownership first: another program's database may carry any user_version, and is never "a newer Loupe's".
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard tables.contains("exchange"), tables.contains("grdb_migrations") else {
            throw TraceStoreError.notALoupeStore(path)
        }
        let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        guard applied.contains("v1") else { throw TraceStoreError.notALoupeStore(path) }
        let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if found > version {
            throw TraceStoreError.newerSchema(path, found: found, supported: version)
        }
        guard applied.isSubset(of: knownMigrations) else {
            throw TraceStoreError.newerSchema(path, found: max(found, version + 1), supported: version)
        }
        guard found >= 1 else { throw TraceStoreError.notALoupeStore(path) }
        return found
    }

    private static let v1 = """
        CREATE TABLE exchange (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            started_at REAL NOT NULL,
            ended_at REAL,
            duration REAL,
            operation TEXT NOT NULL,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            host TEXT NOT NULL,
            path TEXT NOT NULL,
            status INTEGER,
            outcome TEXT NOT NULL,
            error TEXT,
            attempt_count INTEGER NOT NULL,
            replay_of TEXT,
            request_headers TEXT NOT NULL,
            request_body BLOB,
            request_body_size INTEGER,
            request_body_truncated INTEGER,
            response_headers TEXT NOT NULL,
            response_body BLOB,
            response_body_size INTEGER,
            response_body_truncated INTEGER
        );
        CREATE INDEX exchange_started_at ON exchange(started_at);
        CREATE INDEX exchange_host ON exchange(host);
        CREATE INDEX exchange_status ON exchange(status);
        CREATE INDEX exchange_operation ON exchange(operation);
        CREATE INDEX exchange_duration ON exchange(duration);

        CREATE TABLE attempt (
            exchange_sequence INTEGER NOT NULL REFERENCES exchange(sequence) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            started_at REAL NOT NULL,
            request_sent_at REAL,
            first_byte_at REAL,
            ended_at REAL,
            status INTEGER,
            error TEXT,
            circuit_state TEXT,
            retry_reason TEXT,
            retry_delay REAL
        );
        CREATE INDEX attempt_exchange ON attempt(exchange_sequence);

        CREATE TABLE event (
            exchange_sequence INTEGER NOT NULL REFERENCES exchange(sequence) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            at REAL NOT NULL,
            message TEXT NOT NULL,
            attributes TEXT NOT NULL
        );
        CREATE INDEX event_exchange ON event(exchange_sequence);

        PRAGMA user_version = 1;
        """

    /// Version 2: what filters, stats and pruning need.
    ///
    /// - Indexes for the filter terms v1 could not serve (method, attempts, breaker state, event kind). Every
    ///   SQLite index ends with the rowid (`sequence`), so `(method)` is `(method, sequence)`: `~m POST` with
    ///   `ORDER BY sequence DESC LIMIT 50` reads 50 index entries. Errors and replays get partial indexes on
    ///   `(sequence)` holding only their rows; ``SQLFilter`` writes their conditions exactly as the indexes do.
    /// - `stored_at` (when the row was written; bounds age from it) and `stored_bytes`
    ///   (``TraceExchange/storedByteCount``), with `exchange_storage (sequence, stored_at, stored_bytes)` so pruning
    ///   reads only that index, never the rows and their bodies. Rows from v1 get their end (or start) time and
    ///   the byte length of their stored columns plus the same allowances (200 per exchange, 40 per attempt or
    ///   event).
    private static let v2 = """
        ALTER TABLE exchange ADD COLUMN stored_at REAL NOT NULL DEFAULT 0;
        ALTER TABLE exchange ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
        UPDATE exchange SET
            stored_at = COALESCE(ended_at, started_at),
            stored_bytes = 200 + 36 + length(CAST(url AS BLOB)) + length(CAST(operation AS BLOB))
                + length(CAST(method AS BLOB)) + IFNULL(length(CAST(error AS BLOB)), 0)
                + (CASE WHEN replay_of IS NULL THEN 0 ELSE 36 END)
                + length(CAST(request_headers AS BLOB)) + length(CAST(response_headers AS BLOB))
                + IFNULL(length(request_body), 0) + IFNULL(length(response_body), 0)
                + IFNULL((SELECT SUM(40 + IFNULL(length(CAST(error AS BLOB)), 0) + IFNULL(length(CAST(circuit_state AS BLOB)), 0)
                    + IFNULL(length(CAST(retry_reason AS BLOB)), 0)) FROM attempt WHERE exchange_sequence = exchange.sequence), 0)
                + IFNULL((SELECT SUM(40 + length(CAST(kind AS BLOB)) + length(CAST(message AS BLOB)) + length(CAST(attributes AS BLOB)))
                    FROM event WHERE exchange_sequence = exchange.sequence), 0);

        CREATE INDEX exchange_method ON exchange(method);
        CREATE INDEX exchange_errors ON exchange(sequence) WHERE outcome <> 'success';
        CREATE INDEX exchange_attempt_count ON exchange(attempt_count);
        CREATE INDEX exchange_replays ON exchange(sequence) WHERE replay_of IS NOT NULL;
        CREATE INDEX exchange_storage ON exchange(sequence, stored_at, stored_bytes);
        CREATE INDEX attempt_circuit ON attempt(circuit_state, exchange_sequence);
        CREATE INDEX event_kind ON event(kind, exchange_sequence);

        PRAGMA user_version = 2;
        """

    /// Version 3: `attempt.notes`, the attempt's other annotations (cache outcome, breaker key, credential
    /// generation, priority…) as a JSON object; `NULL` when there are none, so older rows need no rewrite.
    private static let v3 = """
        ALTER TABLE attempt ADD COLUMN notes TEXT;
        PRAGMA user_version = 3;
        """

    /// Version 4: `store_setting`, the store's own settings as key/value rows: its bounds (`max_count`,
    /// `max_bytes`, `max_age_seconds`; `NULL` for no limit), and the notices of prunes (`pending_prune`, reported
    /// on the next exchange written; `last_prune`) as JSON. Plain SQL reads them: `SELECT * FROM store_setting`.
    private static let v4 = """
        CREATE TABLE store_setting (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID;
        PRAGMA user_version = 4;
        """

    /// Version 5: `exchange_response_body_size`, so the exchanges list sorted by size reads its pages from an index
    /// like every other sort key (`started_at`, `duration`, `status`, `host` and `operation` were indexed in v1;
    /// each index ends with the rowid, so it is in (key, sequence) order, the keyset of ``ExchangeOrder``). A v4 store
    /// opened read-only still sorts by size, by reading every row (viewers never migrate).
    private static let v5 = """
        CREATE INDEX exchange_response_body_size ON exchange(response_body_size);
        PRAGMA user_version = 5;
        """

    /// Version 6: the linked app that sent an exchange (the live link), as JSON `{"app","host","pid"}`; `NULL` for
    /// exchanges recorded in-process. A v5 store opened read-only has no such column and reads as no source.
    private static let v6 = """
        ALTER TABLE exchange ADD COLUMN source TEXT;
        PRAGMA user_version = 6;
        """

    /// Version 7: streams (issue 30). `exchange.stream` is the stream an exchange carried after its head, as JSON
    /// (`{"kind":"sse"|"websocket","sent","received","omitted","bytes","closeCode","closeReason","closedBy"}`);
    /// `NULL` for a request and response, so older rows need no rewrite. `message` holds its kept messages, one row
    /// each, `idx` their place among all the stream's messages; `(exchange_sequence, idx)` serves the Messages
    /// tab's windows (`LIMIT`/`OFFSET` over the index, never the whole stream) and pruning cascades to it.
    private static let v7 = """
        ALTER TABLE exchange ADD COLUMN stream TEXT;
        CREATE TABLE message (
            exchange_sequence INTEGER NOT NULL REFERENCES exchange(sequence) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            direction TEXT NOT NULL,
            at REAL NOT NULL,
            type TEXT NOT NULL,
            size INTEGER NOT NULL,
            payload BLOB,
            truncated INTEGER NOT NULL,
            event_id TEXT
        );
        CREATE INDEX message_exchange ON message(exchange_sequence, idx);
        PRAGMA user_version = 7;
        """

    /// Version 8: `exchange_retried`, a partial index of the exchanges that took more than one attempt, instead of
    /// `exchange_attempt_count` over every row. That index was the only one no list read: `EXPLAIN
    /// QUERY PLAN` showed `~att >1`'s pages scanning the table (sorted by sequence, SQLite would not read it) and
    /// only the filter's count reading it, while every exchange paid for its entry (about 5 % of an insert,
    /// callgrind). The partial one holds only retried exchanges, in sequence order as `exchange_errors` does: a
    /// page of `~att >1` and its count read just those rows. ``SQLFilter`` writes `attempt_count > 1` in the
    /// index's own words for every comparison that implies it, so SQLite can use it; `~att 1` and `~att <N`, which
    /// match nearly every row, count by reading the table (as `!~e` does).
    private static let v8 = """
        DROP INDEX exchange_attempt_count;
        CREATE INDEX exchange_retried ON exchange(sequence) WHERE attempt_count > 1;
        PRAGMA user_version = 8;
        """

    /// Version 9: `attempt_circuit` holds only the attempts dispatched while the breaker was not `closed`. Every
    /// attempt paid for an entry, and nearly every attempt's state is `closed` (or `NULL`, no breaker): a share
    /// of every exchange's insert for an index entry whose only reader, `~cb`, looks for
    /// the other states (`~cb open` is in the 1,000,000-exchange budget). ``SQLFilter`` says `circuit_state <>
    /// 'closed'` in the index's own words whenever the states it asks for leave `closed` out, so SQLite can read it;
    /// `~cb closed`, which matches nearly every attempt, reads the table (no budget covers it). The migration drops one
    /// index and builds the other from one read of the `attempt` table; no table is rebuilt. Older Loupes refuse a v9
    /// store ("reads up to 8"), as every schema bump has them do; a v8 store is read as it is by a viewer (the
    /// filter's extra condition changes no answer) and upgraded by a writer.
    private static let v9 = """
        DROP INDEX attempt_circuit;
        CREATE INDEX attempt_circuit ON attempt(circuit_state, exchange_sequence) WHERE circuit_state <> 'closed';
        PRAGMA user_version = 9;
        """

    /// Version 10: `exchange.before_rule`, what the app asked for when a rule's rewrite or an edit at a breakpoint
    /// changed the request before it went on the wire (issue 43, item 7; ``TraceRequest``), as JSON
    /// (`{"method","url","headers","body"}`, the body's bytes in base64); `NULL` for the exchanges nothing changed, so
    /// no row is rewritten and an exchange nothing changed stores nothing more. The exchange's own method, URL, headers
    /// and body are what was sent. A v9 store opened read-only has no such column and reads as nothing changed.
    private static let v10 = """
        ALTER TABLE exchange ADD COLUMN before_rule TEXT;
        PRAGMA user_version = 10;
        """
}
