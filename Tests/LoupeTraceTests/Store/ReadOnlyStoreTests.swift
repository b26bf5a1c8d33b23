import Foundation
import GRDB
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A read-only store never writes the database: no migration, no pruning, no journal switch, no chmod. It may
/// share the file with writers through SQLite's `-wal`/`-shm` files, or read it as a snapshot when it cannot.
@Suite("Read-only stores never write")
struct ReadOnlyStoreTests {
    @Test("a store over its own bounds is not pruned by a reader, only by the next writer")
    func readerNeverPrunes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        do {
            let store = try SQLiteTraceStore(path: path, bounds: nil)
            try store.write((0..<20).map { Fixture.simple($0) })
            try store.setBounds(TraceStoreBounds(maxCount: 5, maxBytes: nil, maxAge: nil))
            try store.close()
        }
        let before = try FileSnapshot(path)
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 20)
        #expect(reader.automaticPrunes == nil)
        try reader.close()
        #expect(try FileSnapshot(path).bytes == before.bytes)

        let writer = try SQLiteTraceStore(path: path)
        #expect(try writer.count() == 5)
    }

    @Test("a store from before bounds (schema v3) is read as it is: not upgraded, default bounds")
    func oldStoreNotUpgraded() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.oldStore(at: path, upTo: "v3")
        let before = try FileSnapshot(path)
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 1)
        #expect(try reader.bounds == .default)
        #expect(try reader.lastPrune == nil)
        #expect(try reader.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 3)
        #expect(throws: TraceStoreError.self) { try reader.setBounds(.unlimited) }
        try reader.close()
        #expect(try FileSnapshot(path).bytes == before.bytes)
    }

    /// Opens shared readers as a read-only folder would: SQLite cannot make the `-shm` file.
    static func unshareable(_ path: String, _ configuration: Configuration) throws -> any DatabaseWriter {
        throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "unable to open database file")
    }

    @Test("when SQLite cannot share the file, a reader reads it as a snapshot and creates nothing beside it")
    func snapshotWhenUnshareable() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 4)
        let before = try FileSnapshot(path)
        let reader = try SQLiteTraceStore(path: path, readOnly: true, bounds: nil, pruneEvery: 1, now: Date.init,
                                          openSharedReader: Self.unshareable)
        #expect(reader.isSnapshot)
        #expect(try reader.count() == 4)
        #expect(try reader.recent(limit: 10).map(\.operation) == ["op0", "op1", "op2", "op3"])
        try reader.close()
        #expect(try FileSnapshot(path) == before)
    }

    @Test("a snapshot is refused while commits wait in the -wal file, rather than showing an old store")
    func noSnapshotOverPendingCommits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let writer = try SQLiteTraceStore(path: path)
        try writer.write([Fixture.simple(1)])
        let error = try #require(throws: TraceStoreError.self) {
            try SQLiteTraceStore(path: path, readOnly: true, bounds: nil, pruneEvery: 1, now: Date.init,
                                 openSharedReader: Self.unshareable)
        }
        #expect(error.code == .cannotOpen)
        #expect(error.message.contains("-wal"))
        try writer.close()
    }

    @Test("the immutable URI survives odd characters in the path")
    func immutableURI() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("odd ?#%& name é.sqlite")
        try StoreFixtures.store(at: path, count: 2)
        #expect(SQLiteTraceStore.immutableURI("/a b/c?d").hasPrefix("file:///a%20b/c%3Fd?immutable=1"))
        let reader = try SQLiteTraceStore(path: path, readOnly: true, bounds: nil, pruneEvery: 1, now: Date.init,
                                          openSharedReader: Self.unshareable)
        #expect(try reader.count() == 2)
    }
}
