import Foundation
import GRDB
@testable import LoupeTrace
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import LoupeTestSupport

/// Everything about a file that opening a store must leave alone: its bytes, its mode and type, and which
/// SQLite companions (`-wal`, `-shm`, `-journal`) sit beside it.
struct FileSnapshot: Equatable, CustomStringConvertible {
    var bytes: Data?
    var mode: mode_t
    var companions: [String]

    /// Reads `path`; `readBytes` false for files whose content must not be read (devices, pipes).
    init(_ path: String, readBytes: Bool = true) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        mode = info.st_mode
        bytes = readBytes ? try Data(contentsOf: URL(fileURLWithPath: path)) : nil
        companions = ["-wal", "-shm", "-journal"].filter { access(path + $0, F_OK) == 0 }
    }

    var description: String { "mode \(String(mode, radix: 8)), \(bytes?.count ?? -1) bytes, companions \(companions)" }
}

/// Stores and files in the shapes the safety tests need.
enum StoreFixtures {
    /// A Loupe store at `path` holding `count` small exchanges, closed (its WAL folded into the file).
    static func store(at path: String, count: Int = 3, bounds: TraceStoreBounds? = .default) throws {
        let store = try SQLiteTraceStore(path: path, bounds: bounds)
        try store.write((0..<count).map { Fixture.simple($0) })
        try store.close()
    }

    /// Another program's SQLite database (WAL or rollback journal), with `user_version` set as some apps do.
    static func foreignDatabase(at path: String, wal: Bool, userVersion: Int = 0) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try db.execute(sql: """
                CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
                INSERT INTO users (name) VALUES ('ada'), ('grace');
                PRAGMA user_version = \(userVersion);
                """)
        }
        try queue.close()
        _ = chmod(path, 0o644)
    }

    /// A Loupe store as version `migration` left it (e.g. "v3": before stores had bounds), with one exchange.
    static func oldStore(at path: String, upTo migration: String) throws {
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: migration)
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO exchange (id, started_at, ended_at, duration, operation, method, url, host, path, status,
                    outcome, attempt_count, request_headers, response_headers)
                VALUES ('0F000000-0000-4000-8000-000000000001', 1000, 1001.5, 1.5, 'listUsers', 'GET',
                    'https://api.example.test/users', 'api.example.test', '/users', 200, 'success', 0, '[]', '[]')
                """)
        }
        try pool.close()
    }
}
