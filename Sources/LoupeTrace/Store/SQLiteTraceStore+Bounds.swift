import Foundation
import GRDB

/// The store's own bounds and its record of prunes.
extension SQLiteTraceStore {
    /// The bounds this store keeps itself within: recorded when it was created, changed by ``setBounds(_:)``.
    /// A store from before schema v4 (opened read-only, so not upgraded) has the defaults, which upgrading it
    /// records.
    public var bounds: TraceStoreBounds {
        get throws {
            try guarded { try pool.read { db in try StoreSettings.bounds(in: db) } }
        }
    }

    /// Records `bounds` as the store's own; every writer, in any process, applies them from its next prune on.
    /// Prunes nothing by itself (call ``prune(_:now:dryRun:)`` with the new bounds to apply them now).
    ///
    /// - Throws: ``TraceStoreError/Code/invalidBounds`` for bounds that mean nothing (see
    ///   ``TraceStoreBounds/validated()``); a read-only store throws.
    public func setBounds(_ bounds: TraceStoreBounds) throws {
        let checked = try bounds.validated()
        try guarded { try pool.write { db in try StoreSettings.writeBounds(checked, in: db) } }
    }

    /// The last prune that removed exchanges from this store, by any process (`nil` if none since schema v4).
    public var lastPrune: PruneNotice? {
        get throws {
            try guarded { try pool.read { db in try StoreSettings.last(in: db) } }
        }
    }
}
