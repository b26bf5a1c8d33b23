#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GRDB

/// The store's database connections behind a gate that ``close()`` shuts: every read and write holds the gate
/// shared, closing holds it alone, and nothing passes once it is closed.
///
/// GRDB's `DatabasePool.close()` waits only for the reads that already hold a connection. A read that has looked
/// up the reader pool but not yet taken a connection then runs on a closed one, and SQLite is handed a null
/// handle (`sqlite3_get_autocommit(NULL)`: a SIGSEGV seen once in four CI runs, when a TUI's poll raced
/// the store's close). Here a read either finishes before the connections close or throws
/// `DatabaseError.connectionIsClosed()`, which the store reports as any database error.
package final class GatedDatabase: Sendable {
    private let database: any DatabaseWriter
    private let gate = ReadWriteGate()

    init(_ database: any DatabaseWriter) {
        self.database = database
    }

    package func read<T>(_ value: (Database) throws -> T) throws -> T {
        try gate.shared { try database.read(value) }
    }

    package func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try gate.shared { try database.write(updates) }
    }

    package func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try gate.shared { try database.writeWithoutTransaction(updates) }
    }

    /// Waits for the reads and writes under way, then closes every connection; later reads and writes throw, and
    /// closing again does nothing (as GRDB's own `close()`).
    func close() throws {
        try gate.closing { try database.close() }
    }
}

/// A readers–writer lock whose exclusive side closes it for good.
///
/// `@unchecked Sendable` is safe: `closed` is read only with the lock held shared and written only with it held
/// exclusively, and the lock itself lives at a fixed heap address (allocated once, never moved, freed in `deinit`,
/// when no thread can hold it since none has a reference).
private final class ReadWriteGate: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var closed = false

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        precondition(pthread_rwlock_init(lock, nil) == 0, "pthread_rwlock_init failed")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func shared<T>(_ body: () throws -> T) throws -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard !closed else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed") }
        return try body()
    }

    func closing(_ body: () throws -> Void) throws {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard !closed else { return }
        try body()
        closed = true
    }
}
