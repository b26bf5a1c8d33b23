import Foundation
import GRDB

/// Inserts exchanges inside one write transaction of a SQLite store, with statements prepared once per connection:
/// what ``SQLiteTraceStore/write(_:)`` does with a list and ``SQLiteTraceStore/writeAll(_:)`` with a stream.
///
/// Exchanges pruned since the last write (by any process) are reported on the first exchange inserted, as a
/// `store-prune` event; a transaction that inserts nothing leaves the notice for the next one.
///
/// Exchanges are inserted ``exchangesPerInsert`` rows to a statement, and attempts ``attemptsPerInsert``: one step,
/// one set of cursors on the table and its eleven indexes and one read and write of the `AUTOINCREMENT` counter
/// for the lot, instead of one each. ``finish()`` inserts the rest, and must be called before the
/// transaction commits.
struct ExchangeInserter {
    static let exchangesPerInsert = 16
    static let attemptsPerInsert = 16
    private let db: Database
    private let storedAt: Date
    private let rows = RowWriter()
    private let insertExchange: SQLiteInsert
    private let insertExchanges: SQLiteInsert
    private let insertAttempt: SQLiteInsert
    private let insertAttempts: SQLiteInsert
    private let insertEvent: SQLiteInsert
    private let insertMessage: SQLiteInsert
    /// Exchanges waiting for a multi-row insert.
    private var pendingExchanges: [TraceExchange] = []
    /// Attempts of inserted exchanges waiting for a multi-row insert, with their exchange's sequence and notes.
    private var pendingAttempts: [PendingAttempt] = []
    /// The last attempt notes written and their JSON text: consecutive attempts of one client carry the same
    /// notes (breaker key, credential generation…), and sorting and writing them was a third of an attempt row's
    /// cost.
    private var lastNotes: (notes: [String: String], text: String?)?
    /// Whether the store's prune notice was looked for (at the first exchange).
    private var noticeTaken = false
    /// How many exchanges were inserted.
    private(set) var count = 0
    /// How many of them replaced an exchange with the same id already in the store (a HAR imported again).
    private(set) var replaced = 0

    init(_ db: Database, storedAt: Date) throws {
        self.db = db
        self.storedAt = storedAt
        insertExchange = try SQLiteInsert(db, sql: RowWriter.insertExchanges(1))
        insertExchanges = try SQLiteInsert(db, sql: RowWriter.insertExchangeGroup)
        insertAttempt = try SQLiteInsert(db, sql: RowWriter.insertAttempt)
        insertAttempts = try SQLiteInsert(db, sql: RowWriter.insertAttempts(Self.attemptsPerInsert))
        insertEvent = try SQLiteInsert(db, sql: RowWriter.insertEvent)
        insertMessage = try SQLiteInsert(db, sql: RowWriter.insertMessage)
    }

    mutating func insert(_ exchange: TraceExchange) throws {
        if let notice = try takeNotice() {
            var exchange = exchange
            exchange.events.append(notice.event(on: exchange))
            pendingExchanges.append(exchange)
        } else {
            pendingExchanges.append(exchange)
        }
        if pendingExchanges.count == Self.exchangesPerInsert { try insertPendingExchanges() }
    }

    /// Inserts `exchanges` in order, as ``insert(_:)`` one at a time would, but binds each full group of
    /// ``exchangesPerInsert`` straight from the list. Queued for a group, every exchange was copied three times on
    /// the way (the loop's element, the queue's, the bind loop's) and each copy destroyed again: some thirty
    /// references retained and released for every exchange of the recorder's batches, each time. Exchanges
    /// already waiting keep their place, and the prune notice goes on a copy of the first exchange:
    /// those go through the queue, and the groups start once it is empty.
    mutating func insert(contentsOf exchanges: [TraceExchange]) throws {
        try exchanges.withUnsafeBufferPointer { list in
            var next = 0
            if !list.isEmpty, let notice = try takeNotice() {
                var first = list[0]
                first.events.append(notice.event(on: first))
                pendingExchanges.append(first)
                next = 1
            }
            while next < list.count, !pendingExchanges.isEmpty {
                try insert(list[next])
                next += 1
            }
            while list.count - next >= Self.exchangesPerInsert {
                try insertGroup(UnsafeBufferPointer(rebasing: list[next..<next + Self.exchangesPerInsert]))
                next += Self.exchangesPerInsert
            }
            while next < list.count {
                try insert(list[next])
                next += 1
            }
        }
    }

    /// The store's prune notice, at the transaction's first exchange only (``StoreSettings/takePending(in:)``).
    private mutating func takeNotice() throws -> PruneNotice? {
        guard !noticeTaken else { return nil }
        noticeTaken = true
        return try StoreSettings.takePending(in: db)
    }

    /// The waiting exchanges in one statement, then their attempts, events and messages. Their sequences are the
    /// statement's last rowid and the ones before it: one statement's rows take consecutive rowids (`AUTOINCREMENT`
    /// gives each the largest yet plus one, and nothing else writes inside the transaction). When one of them has
    /// an id the store already holds (or one before it in the statement), the statement stops there and keeps the
    /// rows before it (`INSERT OR FAIL`); those get their children, and that one and the rest are
    /// inserted alone, so that one replaces the old row as before.
    private mutating func insertPendingExchanges() throws {
        let pending = pendingExchanges
        pendingExchanges.removeAll(keepingCapacity: true)
        try pending.withUnsafeBufferPointer { pending in
            if pending.count == Self.exchangesPerInsert {
                try insertGroup(pending)
            } else {
                for index in pending.indices { try insertAlone(pending[index]) }
            }
        }
    }

    /// ``exchangesPerInsert`` exchanges in one statement (see ``insertPendingExchanges()``), each borrowed from
    /// `group` where it lies: indexing an unsafe buffer hands the binding the element in place, where a `for` loop
    /// over an array copies each one out first.
    private mutating func insertGroup(_ group: UnsafeBufferPointer<TraceExchange>) throws {
        let (rows, storedAt) = (rows, storedAt)
        let kept: Int
        let last: Int64
        do {
            try insertExchanges.insert { row in
                for index in group.indices { rows.bindExchange(group[index], storedAt: storedAt, to: &row) }
            }
            kept = group.count
            last = db.lastInsertedRowID
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // The rows inserted before the one that collided (SQLite counts them as the statement's changes); the
            // last rowid is read before the counter's row is written, which may insert one.
            kept = db.changesCount
            last = db.lastInsertedRowID
            if kept > 0 { try Self.advanceSequenceCounter(to: last, in: db) }
        }
        for offset in 0..<kept {
            // The three lists only: the exchange passed from the buffer to a mutating method was copied whole.
            try insertChildren(group[offset].attempts, group[offset].events, group[offset].stream?.messages,
                               sequence: last - Int64(kept - 1 - offset))
        }
        count += kept
        for index in kept..<group.count { try insertAlone(group[index]) }
    }

    /// Moves the exchange table's `AUTOINCREMENT` counter up to `sequence`. SQLite writes the counter when an insert
    /// completes, which one stopped by a collision did not: left behind, replacing the newest kept row (a same-id one
    /// later in the batch) would hand its sequence out again, and sequences must never repeat (live views rely on it).
    /// A store that never completed an insert has no counter row yet.
    private static func advanceSequenceCounter(to sequence: Int64, in db: Database) throws {
        try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'exchange'", arguments: [sequence])
        if db.changesCount == 0 {
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('exchange', ?)", arguments: [sequence])
        }
    }

    private mutating func insertAlone(_ exchange: TraceExchange) throws {
        // Replacing deletes the old row (and its attempts, events and messages) so the new one gets a fresh sequence
        // and live views see it again. Almost every id is new, so the insert goes first and only a collision with the
        // id's `UNIQUE` index pays for the delete (a seek into that index for every exchange otherwise). A failed
        // insert takes no sequence number; `ON CONFLICT DO NOTHING` would, leaving a gap.
        let (rows, storedAt) = (rows, storedAt)
        let bind = { (row: inout SQLiteRow) in rows.bindExchange(exchange, storedAt: storedAt, to: &row) }
        do {
            try insertExchange.insert(bind)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            try insertPendingAttempts()  // the old row's attempts must be in the table for the delete to find them
            try deleteStored(exchange.id)
            try insertExchange.insert(bind)
            replaced += 1
        }
        try insertChildren(exchange.attempts, exchange.events, exchange.stream?.messages, sequence: db.lastInsertedRowID)
        count += 1
    }

    /// Deletes the stored exchange with `id`, and its attempts, events and messages first: the store's connections
    /// do not enforce foreign keys, so nothing cascades. Statements are prepared here, not with the
    /// inserter's: replacing is rare (a HAR imported again).
    private func deleteStored(_ id: UUID) throws {
        let find = try db.cachedStatement(sql: "SELECT sequence FROM exchange WHERE id = ?")
        guard let sequence = try Int64.fetchOne(find, arguments: [StoredUUID.text(of: id)]) else { return }
        for table in ["attempt", "event", "message"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE exchange_sequence = ?").execute(arguments: [sequence])
        }
        try db.cachedStatement(sql: "DELETE FROM exchange WHERE sequence = ?").execute(arguments: [sequence])
    }

    /// An inserted exchange's attempts (queued for a multi-row insert), events and messages.
    private mutating func insertChildren(_ attempts: [TraceAttempt], _ events: [TraceEvent], _ messages: [TraceMessage]?,
                                         sequence: Int64) throws {
        let rows = rows
        for attempt in attempts {
            let notes: String?
            if let last = lastNotes, Self.sameNotes(last.notes, attempt.notes) {
                notes = last.text
            } else {
                notes = rows.notes(of: attempt)
                lastNotes = (attempt.notes, notes)
            }
            pendingAttempts.append(PendingAttempt(attempt: attempt, sequence: sequence, notes: notes))
            if pendingAttempts.count == Self.attemptsPerInsert {
                let pending = pendingAttempts
                try insertAttempts.insert { row in
                    // In place, as ``insertGroup(_:)`` binds exchanges: a `for` loop copied each attempt out.
                    pending.withUnsafeBufferPointer { pending in
                        for index in pending.indices {
                            rows.bindAttempt(pending[index].attempt, sequence: pending[index].sequence,
                                             notes: pending[index].notes, to: &row)
                        }
                    }
                }
                pendingAttempts.removeAll(keepingCapacity: true)
            }
        }
        for event in events {
            let attributes = rows.attributes(of: event)
            try insertEvent.insert { rows.bindEvent(event, sequence: sequence, attributes: attributes, to: &$0) }
        }
        for message in messages ?? [] {
            try insertMessage.insert { rows.bindMessage(message, sequence: sequence, to: &$0) }
        }
    }

    /// `lhs == rhs`, without hashing for the few notes an attempt carries: `==` looked every key of one up in the
    /// other, hashing each, for every attempt's few notes. A dictionary's keys are
    /// distinct, so finding each key of `lhs` among `rhs`'s by `String` `==` (the equality the dictionary's own
    /// lookup ends with) with the value equal, and equal counts, is the same answer. Past 8 notes, `==` as before.
    static func sameNotes(_ lhs: [String: String], _ rhs: [String: String]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count <= 8 else { return lhs == rhs }
        search: for (key, value) in lhs {
            for (otherKey, otherValue) in rhs where otherKey == key {
                guard otherValue == value else { return false }
                continue search
            }
            return false
        }
        return true
    }

    /// Inserts the exchanges and attempts still waiting, one row a statement.
    mutating func finish() throws {
        try insertPendingExchanges()
        try insertPendingAttempts()
    }

    private mutating func insertPendingAttempts() throws {
        let rows = rows
        for pending in pendingAttempts {
            try insertAttempt.insert {
                rows.bindAttempt(pending.attempt, sequence: pending.sequence, notes: pending.notes, to: &$0)
            }
        }
        pendingAttempts.removeAll(keepingCapacity: true)
    }
}

/// An attempt of an inserted exchange waiting for ``ExchangeInserter``'s multi-row insert. A named struct, not a tuple:
/// bound from an unsafe buffer, a tuple's fields went through the runtime's generic copies.
private struct PendingAttempt {
    let attempt: TraceAttempt
    let sequence: Int64
    let notes: String?
}

extension SQLiteTraceStore {
    /// Writes every exchange `produce` hands its sink, in one transaction: all of them, or none when `produce` or
    /// a write throws. Memory does not grow with the number written (each is inserted as it comes), which is how
    /// `loupe import` stores a HAR of any size. Returns how many were written, and how many of those replaced an
    /// exchange with the same id that the store already held.
    ///
    /// Errors of `produce` are rethrown as they are; the store's own are ``TraceStoreError``s.
    @discardableResult
    package func writeAll(_ produce: (_ sink: (TraceExchange) throws -> Void) throws -> Void) throws -> WriteCount {
        let storedAt = now()
        var written = 0
        var replaced = 0
        do {
            try insertTransaction { db in
                var inserter = try ExchangeInserter(db, storedAt: storedAt)
                try produce { exchange in
                    do {
                        try inserter.insert(exchange)
                    } catch {
                        throw Self.storeError(error, path: path)
                    }
                }
                try inserter.finish()
                written = inserter.count
                replaced = inserter.replaced
            }
        } catch let error as DatabaseError {
            throw Self.storeError(error, path: path)
        }
        searchIndexer?.rowsWritten(written)
        // One transaction, whatever its size: pruned by count after it, as before.
        if autoPruner?.isDue(afterWriting: written, bytes: 0) == true { autoPrune() }
        return WriteCount(written: written, replaced: replaced)
    }
}

extension SQLiteTraceStore {
    /// Runs `body` in a write transaction whose statement journals are kept in memory.
    ///
    /// A 16-row insert may fail on its last row (a same-id exchange) and must then be undone alone, so SQLite keeps
    /// the original of every page it changes in a statement journal, which spills to a temporary file past 64 KiB;
    /// the pages one such insert touches (the table and eleven indexes) are about that much, so every statement
    /// wrote a temp file: eight times the listener's `pwrite` calls and three times its system time (by
    /// strace). In memory it is one statement's pages at most, freed when the statement ends. Only around
    /// inserts: a prune's one large `DELETE` keeps its journal on disk as before. SQLite reads the setting when the
    /// transaction begins, and allows changing it only outside one.
    func insertTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in
            // Prepared once per connection, as the notice's look-up: parsing each pragma again cost
            // more than the rest of a small transaction's bookkeeping.
            try db.cachedStatement(sql: "PRAGMA temp_store = MEMORY").execute()
            defer { try? db.cachedStatement(sql: "PRAGMA temp_store = DEFAULT").execute() }
            var result: T?
            try db.inTransaction {
                result = try body(db)
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "no result") }
            return result
        }
    }
}

/// What one ``SQLiteTraceStore/writeAll(_:)`` stored.
package struct WriteCount: Sendable, Equatable {
    /// Every exchange written.
    package var written: Int
    /// Those that replaced an exchange with the same id already in the store.
    package var replaced: Int
    /// Those the store did not hold before.
    package var added: Int { written - replaced }

    package init(written: Int, replaced: Int) {
        self.written = written
        self.replaced = replaced
    }
}
