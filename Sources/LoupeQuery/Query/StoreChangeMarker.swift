import Foundation
import LoupeTrace

/// A cheap token that changes when the store changes: rows written (a larger ``maxSequence``), rows pruned
/// (a larger ``minSequence``), or rows rewritten in place, say by `loupe redact` in another process
/// (``version``). Poll ``TraceStore/changeMarker()`` and reread the visible page when it differs.
///
/// Compare markers from one store only. A marker that differs may still mean nothing changed that a given query
/// shows; one that is equal means nothing changed.
public struct StoreChangeMarker: Hashable, Sendable {
    /// The largest sequence stored, or `nil` when the store is empty.
    public var maxSequence: Int64?
    /// The smallest sequence stored, or `nil` when the store is empty.
    public var minSequence: Int64?
    /// Changes when any commit changes the store's file (SQLite's `PRAGMA data_version`, read on one connection),
    /// or, for the in-memory store, on any write or prune.
    public var version: Int64

    /// A marker with these parts (stores make their own with ``TraceStore/changeMarker()``).
    public init(maxSequence: Int64?, minSequence: Int64?, version: Int64) {
        self.maxSequence = maxSequence
        self.minSequence = minSequence
        self.version = version
    }
}
