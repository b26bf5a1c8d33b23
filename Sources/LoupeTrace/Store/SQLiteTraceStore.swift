import Foundation
import GRDB
import Synchronization

/// Keeps exchanges in one SQLite file (GRDB `DatabasePool`, WAL mode): the store the CLI and the TUI share.
///
/// WAL lets one process record while others read; every read sees the commits made before it began. A store
/// Loupe creates is owner-only (0600, and SQLite gives its `-wal`/`-shm` companions the same mode).
///
/// Opening never changes a file that is not a Loupe store this version can use: the path is checked with `stat`
/// (folders, pipes, sockets and devices are refused at once), the header is read with a plain read-only
/// descriptor, and the schema with a connection that cannot write, all before any journal switch, migration or
/// write. A read-only store never writes (no migration, no pruning); a file that is not writable can still be
/// read, as a snapshot when SQLite cannot share it. Errors are ``TraceStoreError``s saying what is wrong.
///
/// A store has its own ``bounds`` (recorded when it is created; by default 256 MB and 14 days; changed with
/// ``setBounds(_:)`` or `loupe prune --set-max-…`). A writable store keeps itself within them: it prunes when it
/// opens, after every `pruneEvery` exchanges written and after every sixteenth of its size bound written, on the
/// caller of ``write(_:)`` (the recorder's background writer, the listener's store thread), never on the request
/// path. Every prune that removes exchanges is recorded in the store, and the next
/// exchange written carries a `store-prune` event saying how many went and why (``PruneNotice``).
///
/// ```swift
/// let store = try SQLiteTraceStore(path: StoreLocation.defaultPath())             // creates it if needed
/// let reader = try SQLiteTraceStore(path: path, readOnly: true)                    // never creates or writes
/// ```
public final class SQLiteTraceStore: TraceStoreWriting {
    /// Where the database file is.
    public let path: String
    /// Whether this store was opened read-only.
    public let isReadOnly: Bool
    /// Whether this read-only store reads the file as an immutable snapshot (SQLite could not share it: the file
    /// and its folder are not writable); commits made later by others are not seen.
    public let isSnapshot: Bool
    /// The connections, behind the gate that ``close()`` shuts (see ``GatedDatabase``).
    package let pool: GatedDatabase
    /// Tells when to prune automatically (writable stores opened with bounds only).
    let autoPruner: AutoPruner?
    /// The clock for `stored_at` and for the age bound.
    package let now: @Sendable () -> Date
    /// This store's file among the files the process has open (see ``OpenStoreFiles``).
    private let openFile: OpenStoreFiles.FileID?
    /// Which sort-key indexes the file has, as first looked up (a keyset page asks on every read otherwise).
    package let sortIndexes = Mutex<[String: Bool]>([:])
    /// The summary columns this file has (a v5 store opened read-only has no `source`, a v6 one no `stream`), once
    /// known.
    package let summaryColumnList = Mutex<String?>(nil)
    /// Whether the file had the search index (``SearchIndex``, schema v11) when opened: filters then read its
    /// candidates. A viewer of an older store scans, even should a writer upgrade the file meanwhile.
    public let hasSearchIndex: Bool
    /// Indexes the rows this writer writes, off its write transactions (writable stores only).
    let searchIndexer: SearchIndexer?

    /// Opens the store at `path`. A writable open creates the store (and its folders) when nothing is there, and
    /// upgrades an older Loupe store; a read-only open requires an existing store and never writes.
    ///
    /// - Parameters:
    ///   - bounds: the bounds recorded in a store this call creates (or upgrades from a version without bounds);
    ///     an existing store keeps its own, and writers apply the store's. `nil` records no limits, and this
    ///     writer never prunes by itself (``prune(_:now:dryRun:)`` still works): for tools that prune explicitly.
    ///   - pruneEvery: exchanges written between automatic prunes.
    ///   - now: the clock that stamps writes and ages exchanges (inject one in tests).
    public convenience init(path: String, readOnly: Bool = false, bounds: TraceStoreBounds? = .default,
                            pruneEvery: Int = 10_000, now: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(path: path, readOnly: readOnly, bounds: bounds, pruneEvery: pruneEvery, now: now,
                      openSharedReader: { try DatabasePool(path: $0, configuration: $1) })
    }

    /// The designated initializer; tests replace `openSharedReader` to take the snapshot path, and `indexing` to
    /// decide when the rows written are indexed.
    init(path: String, readOnly: Bool, bounds: TraceStoreBounds?, pruneEvery: Int, now: @escaping @Sendable () -> Date,
         indexing: SearchIndexPolicy = SearchIndexPolicy(),
         openSharedReader: (String, Configuration) throws -> any DatabaseWriter) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.now = now
        self.autoPruner = readOnly ? nil : bounds.map { _ in AutoPruner(interval: pruneEvery) }
        do {
            if readOnly {
                let (reader, snapshot) = try Self.openReader(path, openShared: openSharedReader)
                (pool, isSnapshot) = (GatedDatabase(reader), snapshot)
            } else {
                pool = GatedDatabase(try Self.openWriter(path, bounds: bounds))
                isSnapshot = false
            }
        } catch {
            throw Self.storeError(error, path: path)
        }
        // A writer asks on its own connection: opening one of the pool's readers here left the `-wal` file behind
        // after `close()` (ReadOnlyStoreTests' snapshots then refused the store).
        hasSearchIndex = (try? readOnly ? pool.read(SearchIndex.exists) : pool.writeWithoutTransaction(SearchIndex.exists)) ?? false
        // Rows another writer left above the mark (it ended without closing) are indexed as this one's are.
        searchIndexer = readOnly || !hasSearchIndex ? nil : SearchIndexer(
            pool: pool, policy: indexing, waiting: (try? pool.writeWithoutTransaction(SearchIndex.newerCount)) ?? 0)
        openFile = OpenStoreFiles.retain(path)
        autoPrune()
    }

    deinit {
        OpenStoreFiles.release(openFile)
    }

    /// Indexes the rows written and not yet in the search index, then closes the database connections once the
    /// reads and writes under way have finished; later reads and writes throw, and closing again does nothing.
    public func close() throws {
        searchIndexer?.close()
        try guarded { try pool.close() }
    }

    // MARK: Writing

    public func write(_ exchanges: [TraceExchange]) throws {
        guard !exchanges.isEmpty else { return }
        let storedAt = now()
        try guarded {
            try insertTransaction { db in
                var inserter = try ExchangeInserter(db, storedAt: storedAt)
                try inserter.insert(contentsOf: exchanges)
                try inserter.finish()
            }
        }
        searchIndexer?.rowsWritten(exchanges.count)
        if let autoPruner {
            let bytes = autoPruner.countsBytes ? exchanges.reduce(0) { $0 + $1.storedByteCount } : 0
            if autoPruner.isDue(afterWriting: exchanges.count, bytes: bytes) { autoPrune() }
        }
    }

    // MARK: Errors

    /// Runs `body`, turning SQLite errors into ``TraceStoreError``s that name this store.
    package func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TraceFilterError {
            throw error  // a filter too complex for SQLite is the filter's fault, not the store's (SQLFilter)
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    package static func storeError(_ error: any Error, path: String) -> TraceStoreError {
        if let error = error as? TraceStoreError { return error }
        guard let error = error as? DatabaseError else { return .database(path, String(describing: error)) }
        switch error.resultCode {
        // The header was checked before SQLite opened the file, so SQLite finding "not a database" later means
        // damage (a header or page overwritten), as SQLITE_CORRUPT does.
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damaged(path, "SQLite: \(error.message ?? "database disk image is malformed")")
        case .SQLITE_CANTOPEN, .SQLITE_PERM: return .cannotOpen(path, error.message ?? "\(error)")
        case .SQLITE_READONLY: return .readOnly(path, error.message ?? "SQLite cannot write it")
        default: return .database(path, error.message ?? "\(error)")
        }
    }
}
