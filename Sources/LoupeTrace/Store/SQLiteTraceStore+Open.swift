import Foundation
import GRDB

/// Opening a store without changing any file that is not a Loupe store this version can use.
///
/// Order: `stat` (only a regular file goes on), the header through a read-only descriptor (empty, not SQLite,
/// damaged, newer), the schema through a connection that cannot write, and only then the real connection: a
/// writer's (journal mode, migration) or a reader's. A store is created whole in a hidden file and linked into
/// place (``StoreFile/createAtomically(_:build:)``).
extension SQLiteTraceStore {
    static func configuration(readOnly: Bool, label: String = "LoupeTrace") -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.label = label
        // Another process (the demo, `loupe send`) may be writing: wait for its lock rather than fail at once.
        configuration.busyMode = .timeout(5)
        // The store deletes an exchange's attempts, events and messages itself (pruning and replacing are its only
        // deletes) and only ever inserts children of the exchanges it just inserted, so SQLite need not enforce the
        // references: enforcing them made every multi-row attempt insert look its exchange up and keep a statement
        // journal to undo itself, on every exchange. Readers never write.
        configuration.foreignKeysEnabled = false
        // A writer's larger page cache keeps the indexes hot while ingesting; a viewer reads a screen at a time and
        // counts over indexes the OS caches anyway, so its cache stays small (it is the TUI's peak RSS).
        let cacheKiB = readOnly ? 4096 : 32768
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, which for a flight
            // recorder beats paying an fsync per batch.
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -\(cacheKiB)")
        }
        return configuration
    }

    /// Creates the store if nothing is at `path`, checks it, then opens it for writing and upgrades its schema.
    static func openWriter(_ path: String, bounds: TraceStoreBounds?) throws -> any DatabaseWriter {
        if try StoreFile.inspect(path) == nil {
            _ = try StoreFile.createAtomically(path) { try build($0, bounds: bounds ?? .unlimited) }
        }
        let version = try check(path)
        guard let found = try StoreFile.inspect(path) else { throw TraceStoreError.notFound(path) }
        if let reason = found.notWritable { throw TraceStoreError.readOnly(path, reason) }
        let pool = try DatabasePool(path: path, configuration: configuration(readOnly: false))
        if version < SQLiteSchema.version {
            // A store from before v4 has no bounds of its own: it gets this writer's, as it would have applied them.
            try SQLiteSchema.migrator(seeding: bounds ?? .default).migrate(pool)
        }
        return pool
    }

    /// Checks the store at `path`, then opens it for reading only: shared with writers when SQLite can (it may
    /// create the `-wal`/`-shm` files it shares through, never changing the database), else as an immutable
    /// snapshot. Returns the connection and whether it is a snapshot.
    static func openReader(_ path: String, openShared: (String, Configuration) throws -> any DatabaseWriter)
        throws -> (any DatabaseWriter, isSnapshot: Bool)
    {
        _ = try check(path)
        let configuration = configuration(readOnly: true)
        do {
            let reader = try openShared(path, configuration)
            try reader.read { db in _ = try Int.fetchOne(db, sql: "PRAGMA user_version") }
            return (reader, false)
        } catch let error as DatabaseError where cannotShare(error) {
            // Sharing needs the `-shm` file, which a read-only folder cannot hold. A snapshot needs none, but would
            // miss commits still in the `-wal` file: refuse then rather than show an old store as current.
            if let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber,
               size.intValue > 0 {
                throw TraceStoreError.cannotOpen(path, """
                    its newest commits are in \(path)-wal, which SQLite cannot share read-only here \
                    (\(error.message ?? "\(error)")); open it once where it is writable
                    """)
            }
            return (try DatabaseQueue(path: immutableURI(path), configuration: configuration), true)
        }
    }

    /// Judges the file at `path` without writing anything (not even `-wal`/`-shm` files): a regular, non-empty
    /// SQLite file, not cut short, whose schema is a Loupe store's this version reads. Returns its schema version.
    ///
    /// A file up to ``fullCheckLimit`` has every page checked (`PRAGMA quick_check`), so any command on a small
    /// store reports damage anywhere in it. A larger file is not: the check reads every page, so its cost grows
    /// with the file and would soon dwarf a `list`. There, damage is reported
    /// by the queries that reach it (``TraceStoreError/Code/damaged``) and by ``checkIntegrity()``.
    static func check(_ path: String) throws -> Int {
        guard let found = try StoreFile.inspect(path) else { throw TraceStoreError.notFound(path) }
        let walExists = StoreFile.walExists(path)
        // A file this process already has open was judged when it was opened, and reading its header with a plain
        // descriptor now would drop the open connections' locks (``OpenStoreFiles``).
        if !OpenStoreFiles.isOpen(path) {
            try checkHeader(path, walExists: walExists)
        }
        let connection = try checkConnection(path, walExists: walExists)
        defer { try? connection.close() }
        return try connection.read { db in
            let version = try SQLiteSchema.inspect(db, path: path)
            if found.size <= fullCheckLimit { try checkEveryPage(db, path: path) }
            return version
        }
    }

    /// Refuses an empty file, one that is not SQLite, one with a damaged header, and one cut short.
    private static func checkHeader(_ path: String, walExists: Bool) throws {
        let (header, fileSize) = try StoreFile.header(path)
        // Without a `-wal` file no connection is open, so the header's page count is settled (a checkpoint may
        // write page 1 before the pages it adds).
        if header.sizeIsValid, !walExists, fileSize < header.pageCount * header.pageSize {
            throw TraceStoreError.damaged(path, """
                the file holds \(fileSize) bytes but its header counts \(header.pageCount) pages of \(header.pageSize) \
                bytes: it was cut short
                """)
        }
    }

    /// A connection that cannot write: immutable when no `-wal` file exists (nothing uncommitted to see, and
    /// SQLite then creates no `-wal`/`-shm` beside a file that may not be ours), read-only otherwise.
    private static func checkConnection(_ path: String, walExists: Bool) throws -> DatabaseQueue {
        let configuration = configuration(readOnly: true, label: "LoupeTrace.check")
        guard walExists else { return try DatabaseQueue(path: immutableURI(path), configuration: configuration) }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "PRAGMA user_version") }
            return queue
        } catch let error as DatabaseError where cannotShare(error) {
            return try DatabaseQueue(path: immutableURI(path), configuration: configuration)
        }
    }

    /// Errors of a read-only connection that cannot set up WAL sharing (no writable `-shm`).
    private static func cannotShare(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY
    }

    /// An SQLite URI opening `path` as immutable: no locks, no `-wal`/`-shm`, nothing written.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var encoded = ""
        for byte in absolute.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "/-._~".utf8.contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return "file://" + encoded + "?immutable=1"
    }

    /// Builds a complete new store (WAL mode, every migration, `bounds` recorded) in the file at `temporary`.
    ///
    /// Nothing syncs while it is built: the file is nobody's until ``StoreFile/createAtomically(_:build:)`` syncs it
    /// once and links it into place, and a crash before that leaves only a hidden file no store is read from.
    static func build(_ temporary: String, bounds: TraceStoreBounds) throws {
        let queue = try DatabaseQueue(path: temporary, configuration: configuration(readOnly: false))
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA journal_mode = WAL")
        }
        try SQLiteSchema.migrator(seeding: bounds).migrate(queue)
        // Closing the only connection checkpoints the WAL into the file and removes it.
        try queue.close()
    }
}

extension SQLiteTraceStore {
    /// Creates a new, empty store at `path` (and its folders) when nothing is there, recording `bounds` as its
    /// own; an existing file is never touched, whatever it is. Returns whether this call created the store.
    @discardableResult
    public static func createIfMissing(path: String, bounds: TraceStoreBounds = .default) throws -> Bool {
        do {
            guard try StoreFile.inspect(path) == nil else { return false }
            return try StoreFile.createAtomically(path) { try build($0, bounds: bounds) }
        } catch {
            throw storeError(error, path: path)
        }
    }
}
