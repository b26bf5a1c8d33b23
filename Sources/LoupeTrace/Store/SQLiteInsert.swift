import Foundation
import GRDB
import GRDBSQLite

/// One of GRDB's cached INSERT statements, bound and stepped through SQLite's C API: each value goes straight to
/// its `sqlite3_bind_*`, with no `DatabaseValue` array, `StatementArguments` or argument validation per row (what
/// was left of Loupe's write cost over a raw insert; DECISIONS 119, 125).
///
/// Values are bound as GRDB binds them, so rows are the same bytes either way (tested against GRDB's own path):
/// text NUL-terminated (`-1` length, as GRDB's `String` binding), an empty `Data` as `NULL` (GRDB passes its
/// `nil` base address too), `Bool` as 0 or 1. Strings and blobs are `SQLITE_TRANSIENT`: SQLite copies them during
/// the bind call, so no pointer outlives the closure that lent it.
///
/// Only for the store's own writer, inside its write transaction: stepping below GRDB skips its per-statement
/// bookkeeping (transaction observers, observed regions, cancellation), and the store registers none of those.
/// Failures are thrown as the `DatabaseError` GRDB would throw (extended result code, message, SQL), and the
/// statement is reset and stays usable (a `UNIQUE` collision is retried on it).
struct SQLiteInsert {
    private let db: Database
    private let statement: Statement

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
    }

    /// Binds the values `bind` adds, in the statement's parameter order, runs the insert and resets the statement.
    /// Every parameter must be bound: SQLite keeps a parameter's last value across resets otherwise.
    func insert(_ bind: (inout SQLiteRow) -> Void) throws {
        let handle = statement.sqliteStatement
        var row = SQLiteRow(handle)
        bind(&row)
        // Bindings are cleared after each row (also on failure) so the statement never holds the last row's
        // bodies until the next batch.
        defer { sqlite3_clear_bindings(handle) }
        guard row.failure == SQLITE_OK, row.count == sqlite3_bind_parameter_count(handle) else {
            let code = row.failure == SQLITE_OK ? SQLITE_MISUSE : row.failure
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: code == SQLITE_MISUSE ? "\(row.count) values bound" : String(cString: sqlite3_errstr(code)),
                sql: statement.sql)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = db.lastErrorMessage
            // `sqlite3_reset` repeats the step's error but does reset the statement, ready for the next row.
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        let reset = sqlite3_reset(handle)
        guard reset == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: reset), message: db.lastErrorMessage, sql: statement.sql)
        }
    }
}

/// The values of one row, bound to parameters 1, 2, 3… in the order they are added (see ``SQLiteInsert``).
struct SQLiteRow {
    private let handle: OpaquePointer
    /// How many values were added.
    private(set) var count: Int32 = 0
    /// The first bind that failed (`SQLITE_TOOBIG` for a value past SQLite's limit), thrown before the step.
    private(set) var failure: Int32 = SQLITE_OK

    fileprivate init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    mutating func add(_ value: Int64?) {
        bind { handle, index in
            guard let value else { return sqlite3_bind_null(handle, index) }
            return sqlite3_bind_int64(handle, index, value)
        }
    }

    mutating func add(_ value: Int?) {
        add(value.map(Int64.init))
    }

    mutating func add(_ value: Bool?) {
        add(value.map { Int64($0 ? 1 : 0) })
    }

    mutating func add(_ value: Double?) {
        bind { handle, index in
            guard let value else { return sqlite3_bind_null(handle, index) }
            return sqlite3_bind_double(handle, index, value)
        }
    }

    mutating func add(_ value: String?) {
        bind { handle, index in
            guard let value else { return sqlite3_bind_null(handle, index) }
            return value.withCString { sqlite3_bind_text(handle, index, $0, -1, transient) }
        }
    }

    mutating func add(_ value: Data?) {
        bind { handle, index in
            guard let value else { return sqlite3_bind_null(handle, index) }
            return value.withUnsafeBytes { bytes in
                sqlite3_bind_blob64(handle, index, bytes.baseAddress, sqlite3_uint64(bytes.count), transient)
            }
        }
    }

    private mutating func bind(_ body: (OpaquePointer, Int32) -> Int32) {
        count += 1
        let code = body(handle, count)
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }
}

/// SQLite's `SQLITE_TRANSIENT` (a destructor of -1: copy the value now), which Swift cannot import from the macro.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
