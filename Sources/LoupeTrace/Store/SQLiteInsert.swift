import Foundation
import GRDB
import GRDBSQLite

/// One of GRDB's cached INSERT statements, bound and stepped through SQLite's C API: each value goes straight to
/// its `sqlite3_bind_*`, with no `DatabaseValue` array, `StatementArguments` or argument validation per row (what
/// was left of Loupe's write cost over a raw insert).
///
/// Values are bound as GRDB binds them, so rows are the same bytes either way (tested against GRDB's own path):
/// text up to its first NUL (GRDB's `String` binding passes `-1` for the length), an empty `Data` through SQLite's
/// own copy with the base address `Data` gives (a zero-length blob here, as GRDB's), `Bool` as 0 or 1. Blobs past
/// ``SQLiteRow/bufferedBlobLimit`` are `SQLITE_TRANSIENT`: SQLite copies them during the bind call. Texts and
/// smaller blobs are copied into one buffer per statement and bound `SQLITE_STATIC` from it, while the buffer is
/// held for the step and until the bindings are cleared: a transient value cost SQLite a `malloc`, a copy and a
/// `free` each (its allocator takes a mutex for its statistics), 13 texts for every exchange row, and `strlen`
/// on every text.
///
/// Only for the store's own writer, inside its write transaction: stepping below GRDB skips its per-statement
/// bookkeeping (transaction observers, observed regions, cancellation), and the store registers none of those.
/// Failures are thrown as the `DatabaseError` GRDB would throw (extended result code, message, SQL), and the
/// statement is reset and stays usable (a `UNIQUE` collision is retried on it).
package struct SQLiteInsert {
    private let db: Database
    private let statement: Statement

    package init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
    }

    /// Binds the values `bind` adds, in the statement's parameter order, runs the insert and resets the statement.
    /// Every parameter must be added: a NULL is left unbound (NULL after the last row's cleared bindings, see
    /// `SQLiteRow.skipNull()`), and SQLite keeps a parameter's last value across resets otherwise.
    package func insert(_ bind: (inout SQLiteRow) -> Void) throws {
        let handle = statement.sqliteStatement
        var row = SQLiteRow(handle)
        bind(&row)
        let texts = row.texts
        // The texts' bytes stay where they are until the bindings that point into them are cleared below.
        try row.textBytes.withUnsafeBufferPointer { bytes in
            // Bindings are cleared after each row (also on failure) so the statement never points into this buffer,
            // nor holds the last row's bodies, after the call.
            defer { sqlite3_clear_bindings(handle) }
            var failure = row.failure
            for text in texts {
                // `textBytes` starts with a NUL, so its base address is never nil: an empty text is '' (a nil
                // pointer would bind NULL).
                let start = UnsafeRawPointer(bytes.baseAddress! + text.offset)
                let code = text.isBlob
                    ? sqlite3_bind_blob(handle, text.index, start, text.length, staticBytes)
                    : sqlite3_bind_text(handle, text.index, start.assumingMemoryBound(to: CChar.self), text.length,
                                        staticBytes)
                if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
            }
            guard failure == SQLITE_OK, row.count == sqlite3_bind_parameter_count(handle) else {
                let code = failure == SQLITE_OK ? SQLITE_MISUSE : failure
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
}

/// The values of one row, bound to parameters 1, 2, 3… in the order they are added (see ``SQLiteInsert``).
package struct SQLiteRow {
    private let handle: OpaquePointer
    /// How many values were added.
    private(set) var count: Int32 = 0
    /// The first bind that failed (`SQLITE_TOOBIG` for a value past SQLite's limit), thrown before the step.
    private(set) var failure: Int32 = SQLITE_OK
    /// The texts' bytes, one after another, after a leading NUL; bound when the row is complete.
    private(set) var textBytes: [UInt8] = [0]
    /// Each text's (and small blob's) parameter and its place in ``textBytes``.
    private(set) var texts: [(index: Int32, offset: Int, length: Int32, isBlob: Bool)] = []

    fileprivate init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    package mutating func add(_ value: Int64?) {
        guard let value else { return skipNull() }
        bind { handle, index in sqlite3_bind_int64(handle, index, value) }
    }

    package mutating func add(_ value: Int?) {
        add(value.map(Int64.init))
    }

    package mutating func add(_ value: Bool?) {
        add(value.map { Int64($0 ? 1 : 0) })
    }

    package mutating func add(_ value: Double?) {
        guard let value else { return skipNull() }
        bind { handle, index in sqlite3_bind_double(handle, index, value) }
    }

    package mutating func add(_ value: String?) {
        guard var value else { return skipNull() }
        count += 1
        let index = count
        value.withUTF8 { utf8 in
            // Up to the first NUL, as SQLite reads a `-1` length (GRDB's binding, and this one's before); `memchr`
            // finds it a word at a time.
            let length = utf8.isEmpty ? 0
                : memchr(utf8.baseAddress!, 0, utf8.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(utf8.baseAddress!) }
                ?? utf8.count
            guard length <= Int(Int32.max) else {
                if failure == SQLITE_OK { failure = SQLITE_TOOBIG }
                return
            }
            if textBytes.count == 1 { reserve() }
            texts.append((index, textBytes.count, Int32(length), false))
            textBytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<length]))
        }
    }

    /// A header list as its JSON text (``StoredJSON/text(of:)-([TraceHeader])``), written straight into the row's
    /// text buffer: no `String` is made and copied in again. JSON text holds no NUL (control
    /// characters are escaped), so all of it is bound, as `add(StoredJSON.text(of: headers))` binds it. Written
    /// through a pointer into scratch room (on the stack for the usual few headers) and appended in one copy
    /// (no `String` is made for it).
    package mutating func add(jsonOf headers: [TraceHeader]) {
        count += 1
        if textBytes.count == 1 { reserve() }
        let start = textBytes.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: StoredJSON.textBound(of: headers)) { room in
            let length = StoredJSON.write(headers, into: room.baseAddress!)
            textBytes.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<length]))
        }
        let length = textBytes.count - start
        guard length <= Int(Int32.max) else {
            textBytes.removeSubrange(start...)
            if failure == SQLITE_OK { failure = SQLITE_TOOBIG }
            return
        }
        texts.append((count, start, Int32(length), false))
    }

    /// An exchange's URL, host and path (``StoredURLParts/hostAndPath(of:)``), three parameters in a row. A plain
    /// URL's host and path are bound from the URL's own bytes in the text buffer: no `String` is made or copied for
    /// either. Any other URL binds the parts `URLComponents` gives.
    package mutating func add(urlWithHostAndPath url: String) {
        var url = url
        let start = textBytes.count
        let ranges = url.withUTF8 { StoredURLParts.plainRanges($0) }
        add(url)
        // A plain URL has no NUL, so all of it was copied, from `start` (unless it was refused as too big).
        guard let (host, path) = ranges, let last = texts.last, last.index == count, last.offset == start else {
            let (host, path) = StoredURLParts.hostAndPath(of: url)
            add(host)
            add(path)
            return
        }
        count += 1
        texts.append((count, start + host.lowerBound, Int32(host.count), false))
        count += 1
        texts.append((count, start + path.lowerBound, Int32(path.count), false))
    }

    /// An id as its stored text (``StoredUUID/text(of:)``), written straight into the row's text buffer: no
    /// `String` is made for it.
    package mutating func add(idOf id: UUID) {
        count += 1
        if textBytes.count == 1 { reserve() }
        let start = textBytes.count
        textBytes.append(contentsOf: repeatElement(0, count: 36))
        let written = textBytes.withUnsafeMutableBufferPointer { buffer in
            StoredUUID.format(id, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        texts.append((count, start, Int32(written), false))
    }

    /// Room for a 16-row statement's texts at the first one (growing by doubling copied them several times).
    private mutating func reserve() {
        textBytes.reserveCapacity(8192)
        texts.reserveCapacity(256)
    }

    /// A blob up to this size is copied into the row's buffer and bound from there, as texts are; a larger one is
    /// copied by SQLite (`SQLITE_TRANSIENT`) rather than grow the buffer.
    static let bufferedBlobLimit = 16 << 10

    /// A blob; an empty one goes through SQLite's copy as before, so it is bound exactly as GRDB binds it.
    ///
    /// A small one is copied into the row's buffer and bound `SQLITE_STATIC` from it: SQLite's transient copy cost a
    /// `malloc` and a `free` a blob (the statement's value had been released by the last row's cleared bindings),
    /// twice an exchange, for its two bodies.
    package mutating func add(_ value: Data?) {
        guard let value else { return skipNull() }
        guard !value.isEmpty, value.count <= Self.bufferedBlobLimit else {
            return bind { handle, index in
                value.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(handle, index, bytes.baseAddress, sqlite3_uint64(bytes.count), transient)
                }
            }
        }
        count += 1
        if textBytes.count == 1 { reserve() }
        texts.append((count, textBytes.count, Int32(value.count), true))
        value.withUnsafeBytes { textBytes.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// A NULL: the parameter is left as it is, which is NULL. SQLite makes a statement's parameters NULL when it is
    /// prepared and ``SQLiteInsert/insert(_:)`` clears them after every row (`sqlite3_clear_bindings`, also on a
    /// failure), and no other code binds the store's insert statements. each `sqlite3_bind_null` was a call
    /// for nothing, ten a recorded exchange with its attempt.
    private mutating func skipNull() {
        count += 1
    }

    private mutating func bind(_ body: (OpaquePointer, Int32) -> Int32) {
        count += 1
        let code = body(handle, count)
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }
}

/// SQLite's `SQLITE_TRANSIENT` (a destructor of -1: copy the value now), which Swift cannot import from the macro.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
/// SQLite's `SQLITE_STATIC` (no destructor: the bytes outlive the binding; ``SQLiteInsert/insert(_:)`` sees to it).
private let staticBytes: sqlite3_destructor_type? = nil
