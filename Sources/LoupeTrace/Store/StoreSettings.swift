import Foundation
import GRDB

/// The `store_setting` table (schema v4): a store's own bounds and its prune notices.
///
/// Bounds are three rows (`max_count`, `max_bytes`, `max_age_seconds`; `NULL` for no limit), so plain SQL reads
/// them. A store without the table (schema 3 or older, opened read-only) has the default bounds, which is what
/// upgrading it records.
enum StoreSettings {
    private static let keys = (count: "max_count", bytes: "max_bytes", age: "max_age_seconds")
    private static let pendingPrune = "pending_prune"
    private static let lastPrune = "last_prune"

    static func hasTable(_ db: Database) throws -> Bool {
        try db.tableExists("store_setting")
    }

    static func bounds(in db: Database) throws -> TraceStoreBounds {
        guard try hasTable(db) else { return .default }
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM store_setting WHERE key IN (?, ?, ?)",
                                    arguments: [keys.count, keys.bytes, keys.age])
        guard !rows.isEmpty else { return .default }
        var values: [String: DatabaseValue] = [:]
        for row in rows { values[row["key"]] = row["value"] }
        return TraceStoreBounds(
            maxCount: values[keys.count].flatMap { Int.fromDatabaseValue($0) },
            maxBytes: values[keys.bytes].flatMap { Int.fromDatabaseValue($0) },
            maxAge: values[keys.age].flatMap { Double.fromDatabaseValue($0) })
    }

    static func writeBounds(_ bounds: TraceStoreBounds, in db: Database) throws {
        let checked = try bounds.validated()
        let values: [(String, (any DatabaseValueConvertible)?)] = [
            (keys.count, checked.maxCount), (keys.bytes, checked.maxBytes), (keys.age, checked.maxAge),
        ]
        for (key, value) in values {
            try db.execute(sql: "INSERT OR REPLACE INTO store_setting (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Adds `notice` to the one waiting for the next exchange written, and keeps it as the last prune.
    static func record(_ notice: PruneNotice, in db: Database) throws {
        let pending = try read(pendingPrune, in: db).map { $0.merged(with: notice) } ?? notice
        try write(pending, as: pendingPrune, in: db)
        try write(notice, as: lastPrune, in: db)
    }

    /// The notice waiting for the next exchange written, removed from the store (in the caller's transaction).
    static func takePending(in db: Database) throws -> PruneNotice? {
        guard let notice = try read(pendingPrune, in: db) else { return nil }
        try db.execute(sql: "DELETE FROM store_setting WHERE key = ?", arguments: [pendingPrune])
        return notice
    }

    static func last(in db: Database) throws -> PruneNotice? {
        try hasTable(db) ? read(lastPrune, in: db) : nil
    }

    private static func read(_ key: String, in db: Database) throws -> PruneNotice? {
        // A statement prepared once per connection: every insert transaction asks for the pending notice, and
        // preparing it (GRDB's authorizer included) cost more than the rest of a small one.
        let select = try db.cachedStatement(sql: "SELECT value FROM store_setting WHERE key = ?")
        guard let text = try String.fetchOne(select, arguments: [key]) else { return nil }
        // A notice this version cannot read is dropped rather than blocking every write.
        return try? decoder.decode(PruneNotice.self, from: Data(text.utf8))
    }

    private static func write(_ notice: PruneNotice, as key: String, in db: Database) throws {
        let text = String(decoding: try encoder.encode(notice), as: UTF8.self)
        try db.execute(sql: "INSERT OR REPLACE INTO store_setting (key, value) VALUES (?, ?)", arguments: [key, text])
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

extension TraceStoreBounds {
    /// These bounds, if they mean something as a store's own: a count and a size of at least 1, a positive
    /// finite age. Throws ``TraceStoreError/Code/invalidBounds`` otherwise.
    public func validated() throws -> TraceStoreBounds {
        if let maxCount, maxCount < 1 {
            throw TraceStoreError.invalidBounds("a store's count bound must be at least 1 (nil for no limit), not \(maxCount)")
        }
        if let maxBytes, maxBytes < 1 {
            throw TraceStoreError.invalidBounds("a store's size bound must be at least 1 byte (nil for no limit), not \(maxBytes)")
        }
        if let maxAge, !(maxAge > 0 && maxAge.isFinite) {
            throw TraceStoreError.invalidBounds("a store's age bound must be a positive number of seconds (nil for no limit), not \(maxAge)")
        }
        return self
    }
}
