import Foundation
import GRDB

/// The tables of a SQLite trace store, their migrations, and the version checks made on open.
///
/// The version lives in `PRAGMA user_version` (readable by any SQLite tool, and by older Loupes deciding to stop)
/// and GRDB's migration table records which migrations ran. Times are REAL seconds since 1970 so plain SQL can
/// use `datetime(started_at, 'unixepoch')`; ids are upper-case UUID text; header lists and attributes are JSON.
enum SQLiteSchema {
    /// The newest schema this code knows.
    static let version = 1

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        return migrator
    }

    /// Refuses databases from a newer Loupe and SQLite databases that belong to something else.
    static func check(_ db: Database, path: String, requireSchema: Bool) throws {
        let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if found > version {
            throw TraceStoreError.newerSchema(path, found: found, supported: version)
        }
        if try db.tableExists("grdb_migrations"), try migrator.hasBeenSuperseded(db) {
            throw TraceStoreError.newerSchema(path, found: max(found, version + 1), supported: version)
        }
        guard found == 0 else { return }
        // Version 0: a brand-new file is fine to migrate when writing; anyone else's tables are not ours to touch.
        let foreignTables = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
            """)
        if requireSchema || !foreignTables.isEmpty {
            throw TraceStoreError.notALoupeStore(path)
        }
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
}
