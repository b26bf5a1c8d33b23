import Foundation
import GRDB

/// Keeping the store within its bounds.
///
/// Everything is decided from the `exchange_storage (sequence, stored_at, stored_bytes)` index, never from the
/// rows (whose bodies may span overflow pages): the oldest exchanges go first, in one transaction, and their
/// attempts, events and messages with them, deleted by sequence range over their `exchange_sequence` indexes (the
/// store's connections do not enforce foreign keys, so the schema's `ON DELETE CASCADE` does not run;
/// enforcing them would make every insert check its parent). Freed pages are reused; ``vacuum()`` frees them.
extension SQLiteTraceStore {
    /// Removes the oldest exchanges until the store is within `bounds` (one-off bounds: the store's own stay as
    /// they are); a dry run only counts, and works on a read-only store. Removals are recorded as a prune notice.
    public func prune(_ bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult {
        try guarded {
            if dryRun {
                return try pool.read { db in try Self.prune(db, bounds: bounds, now: now, dryRun: true) }
            }
            return try pool.write { db in
                let result = try Self.prune(db, bounds: bounds, now: now, dryRun: false)
                if result.removedCount > 0 {
                    try StoreSettings.record(PruneNotice(result, bounds: bounds, at: now, isAutomatic: false), in: db)
                }
                return result
            }
        }
    }

    /// Rewrites the file without its free pages (slow on big stores; needs no other writer), and returns the bytes
    /// the store then takes on disk (``diskBytes``).
    ///
    /// In WAL mode `VACUUM` writes the new pages into the write-ahead log: the main file keeps its old size until a
    /// checkpoint copies them back and truncates it. The vacuum therefore ends with a truncating checkpoint, so the
    /// file is small when this returns, not when the last connection closes (a size read in between was the old
    /// one: `776.0 KiB` for a file that ended at 112 KiB).
    @discardableResult
    public func vacuum() throws -> Int {
        try guarded {
            // Rows waiting for the search index are indexed first: closing would otherwise write them to the log
            // after the checkpoint below has emptied it.
            try searchIndexer?.indexAll()
            try pool.writeWithoutTransaction { db in
                // A pruned row leaves a delete marker in the search index until FTS5 merges its segments; merged
                // now, the pages the markers held are free for VACUUM to return.
                if try SearchIndex.exists(in: db) {
                    for table in SearchIndex.Table.allCases.map(\.rawValue) + ["search_messages"] {
                        try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('optimize')")
                    }
                }
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
        return diskBytes
    }

    /// What the store takes on disk now: its file and its write-ahead log (`-wal`), whose pages are the store's
    /// too until a checkpoint moves them (the `-shm` index is scratch space, not data).
    public var diskBytes: Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// The last automatic prune by this store that removed something (for diagnostics).
    public var lastAutoPrune: PruneResult? { autoPruner?.lastResult }

    /// Everything this store's automatic prunes removed since it opened (`nil`: nothing), so a command can say so.
    public var automaticPrunes: PruneNotice? { autoPruner?.totalNotice }

    /// Prunes with the store's own bounds, read in the same transaction (another process may have changed them);
    /// failures are ignored (the next write tries again).
    /// Prunes now with the store's own bounds, as a writer does when it opens and every `pruneEvery` exchanges.
    ///
    /// A short-lived writer (one `loupe send`, one import) calls it before it closes, so it leaves the store within
    /// its bounds instead of waiting for the next writer to open it. Read-only stores and writers opened with
    /// `bounds: nil` do nothing; failures are ignored like every automatic prune's.
    public func applyOwnBounds() {
        autoPrune()
    }

    func autoPrune() {
        guard let autoPruner else { return }
        let moment = now()
        let pruned = try? pool.write { db -> (PruneResult, PruneNotice)? in
            let bounds = try StoreSettings.bounds(in: db)
            autoPruner.note(bounds)
            let (keepFrom, reasons) = try Self.firstKept(db, bounds: bounds, now: moment)
            guard let keepFrom else { return nil }
            let result = try Self.apply(db, keepFrom: keepFrom, reasons: reasons, dryRun: false)
            guard result.removedCount > 0 else { return nil }
            let notice = PruneNotice(result, bounds: bounds, at: moment, isAutomatic: true)
            try StoreSettings.record(notice, in: db)
            return (result, notice)
        }
        if let (result, notice) = pruned ?? nil { autoPruner.record(result, notice: notice) }
    }

    private static func prune(_ db: Database, bounds: TraceStoreBounds, now: Date, dryRun: Bool) throws -> PruneResult {
        let (keepFrom, reasons) = try firstKept(db, bounds: bounds, now: now)
        return try apply(db, keepFrom: keepFrom ?? Int64.min, reasons: reasons, dryRun: dryRun)
    }

    /// Counts, then (unless a dry run) deletes everything before `keepFrom`.
    private static func apply(_ db: Database, keepFrom: Int64, reasons: [PruneResult.Reason], dryRun: Bool) throws -> PruneResult {
        let totals = "SELECT COUNT(*), TOTAL(stored_bytes) FROM exchange INDEXED BY exchange_storage"
        let removed = try Row.fetchOne(db, sql: "\(totals) WHERE sequence < ?", arguments: [keepFrom])
        let remaining = try Row.fetchOne(db, sql: "\(totals) WHERE sequence >= ?", arguments: [keepFrom])
        let removedCount: Int = removed?[0] ?? 0
        if !dryRun && removedCount > 0 {
            for table in ["attempt", "event", "message"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE exchange_sequence < ?", arguments: [keepFrom])
            }
            try db.execute(sql: "DELETE FROM exchange WHERE sequence < ?", arguments: [keepFrom])
        }
        return PruneResult(
            removedCount: removedCount, removedBytes: Self.byteCount(removed?[1] ?? 0.0), remainingCount: remaining?[0] ?? 0,
            remainingBytes: Self.byteCount(remaining?[1] ?? 0.0), reasons: reasons, isDryRun: dryRun)
    }

    /// The oldest sequence to keep (everything before it goes), or `nil` when the store is within bounds.
    static func firstKept(_ db: Database, bounds: TraceStoreBounds, now: Date) throws -> (sequence: Int64?, reasons: [PruneResult.Reason]) {
        var keepFrom = Int64.min
        var reasons: [PruneResult.Reason] = []
        /// Moves the cut to `sequence` when that removes something more.
        func cut(to sequence: Int64, _ reason: PruneResult.Reason) throws {
            guard sequence > keepFrom else { return }
            let more = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM exchange WHERE sequence >= ? AND sequence < ?)",
                arguments: [keepFrom, sequence]) ?? false
            keepFrom = sequence
            if more { reasons.append(reason) }
        }

        if let maxAge = bounds.maxAge {
            // The first exchange young enough to stay; everything before it goes (all, when none is).
            let cutoff = now.timeIntervalSince1970 - maxAge
            let firstYoung = try Int64.fetchOne(db, sql: """
                SELECT sequence FROM exchange INDEXED BY exchange_storage WHERE stored_at >= ? ORDER BY sequence LIMIT 1
                """, arguments: [cutoff])
            try cut(to: firstYoung ?? Int64.max, .age)
        }
        if let maxCount = bounds.maxCount {
            // The maxCount-th newest stays; with a count of 0, nothing does.
            let newestKept = maxCount <= 0 ? Int64.max : try Int64.fetchOne(db, sql: """
                SELECT sequence FROM exchange INDEXED BY exchange_storage WHERE sequence >= ?
                ORDER BY sequence DESC LIMIT 1 OFFSET ?
                """, arguments: [keepFrom, maxCount - 1])
            if let newestKept { try cut(to: newestKept, .count) }
        }
        if let maxBytes = bounds.maxBytes, try usedBytes(db) > maxBytes {
            // The file's used pages hold at least the counted bytes, so only a file over the limit needs a sum.
            let total = try Self.byteCount(Double.fetchOne(db, sql: """
                SELECT TOTAL(stored_bytes) FROM exchange INDEXED BY exchange_storage WHERE sequence >= ?
                """, arguments: [keepFrom]) ?? 0)
            if total > maxBytes {
                var remaining = total
                var firstKept = Int64.max
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT sequence, stored_bytes FROM exchange INDEXED BY exchange_storage
                    WHERE sequence >= ? ORDER BY sequence
                    """, arguments: [keepFrom])
                while let row = try rows.next() {
                    if remaining <= maxBytes {
                        firstKept = row[0]
                        break
                    }
                    remaining -= byteCount(row[1] as Double?)
                }
                try cut(to: firstKept, .bytes)
            }
        }
        return (reasons.isEmpty ? nil : keepFrom, reasons)
    }

    /// Bytes in the file's pages that are not free.
    private static func usedBytes(_ db: Database) throws -> Int {
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }

    /// A `TOTAL(stored_bytes)` as an `Int`: a hand-edited row may hold `1e300`, and `Int(_:)` traps past `Int.max`.
    static func byteCount(_ total: Double?) -> Int {
        guard let total, total > 0 else { return 0 }   // also NaN
        return total >= Double(Int.max) ? Int.max : Int(total)
    }
}
