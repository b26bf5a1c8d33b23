import Foundation
import GRDB
import LoupeQuery
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a store never changes a file Loupe does not own: whatever it refuses keeps its bytes, its mode and
/// its neighbours (no `-wal`/`-shm` appears), and pipes, sockets, devices and folders are refused before any open.
@Suite("Refused files stay as they were")
struct RefusedFileTests {
    enum Special: String, CaseIterable, CustomTestStringConvertible {
        case folder, fifo, socket, characterDevice, danglingLink
        var testDescription: String { rawValue }
    }

    @Test("a folder, pipe, socket or device is refused at once, unread and unchanged", arguments: Special.allCases)
    func notAFile(_ special: Special) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("store")
        var pipeWriter: Int32 = -1
        defer { if pipeWriter >= 0 { close(pipeWriter) } }
        switch special {
        case .folder:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .fifo:
            #expect(mkfifo(path, 0o644) == 0)
            // Keep a writer with bytes waiting, so code that reads the pipe takes them (and fails) instead of
            // blocking the test forever.
            pipeWriter = open(path, O_RDWR | O_NONBLOCK)
            #expect(write(pipeWriter, "SQLite format 3\u{0}waiting bytes", 29) == 29)
        case .socket:
            #expect(mknod(path, S_IFSOCK | 0o644, 0) == 0)
        case .characterDevice:
            // A twin of /dev/null (1, 3): the real one must never be at risk, even from a failing test.
            guard mknod(path, S_IFCHR | 0o666, 0x103) == 0 else { return }  // needs root
        case .danglingLink:
            #expect(symlink(folder.file("missing.sqlite"), path) == 0)
        }
        if special != .danglingLink { _ = chmod(path, special == .characterDevice ? 0o666 : 0o755) }
        let before = special == .danglingLink ? nil : try FileSnapshot(path, readBytes: false)
        for readOnly in [false, true] {
            let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: readOnly) }
            #expect(error.code == .notAFile, "\(error)")
            #expect(error.description.hasPrefix("\(path): a"))
        }
        if let before { #expect(try FileSnapshot(path, readBytes: false) == before) }
        #expect(throws: TraceStoreError.self) { try SQLiteTraceStore.createIfMissing(path: path) }
        switch special {
        case .folder:
            #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
        case .fifo:
            var buffer = [UInt8](repeating: 0, count: 64)
            #expect(read(pipeWriter, &buffer, 64) == 29, "the waiting bytes are still in the pipe")
        case .socket, .characterDevice, .danglingLink:
            break
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["store"])
    }

    /// A file at the path that a store open must refuse, with the code it is refused with.
    enum Refused: String, CaseIterable, CustomTestStringConvertible {
        case foreignWAL, foreignRollback, foreignWithUserVersion, foreignWithHighUserVersion, newerSchema, unknownMigration, emptyFile, text,
             cutShort, damagedHeader
        var testDescription: String { rawValue }

        func make(at path: String) throws {
            switch self {
            case .foreignWAL: try StoreFixtures.foreignDatabase(at: path, wal: true)
            case .foreignRollback: try StoreFixtures.foreignDatabase(at: path, wal: false)
            // A foreign database whose user_version happens to be one of Loupe's schema versions.
            case .foreignWithUserVersion: try StoreFixtures.foreignDatabase(at: path, wal: true, userVersion: 3)
            case .foreignWithHighUserVersion: try StoreFixtures.foreignDatabase(at: path, wal: false, userVersion: 99)
            case .newerSchema, .unknownMigration:
                let store = try SQLiteTraceStore(path: path)
                try store.write([Fixture.simple(1)])
                try store.pool.write { db in
                    if self == .newerSchema {
                        try db.execute(sql: "PRAGMA user_version = 99")
                    } else {
                        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
                    }
                }
                try store.close()
            case .emptyFile: #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            case .text: try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
            case .cutShort:
                try StoreFixtures.store(at: path, count: 200)
                let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)
                #expect(truncate(path, off_t(size.intValue / 2)) == 0)
            case .damagedHeader:
                try StoreFixtures.store(at: path)
                let handle = try #require(FileHandle(forUpdatingAtPath: path))
                try handle.seek(toOffset: 16)
                try handle.write(contentsOf: Data([0x00, 0x03]))  // a page size of 3 bytes
                try handle.close()
            }
            _ = chmod(path, 0o644)
        }

        var code: TraceStoreError.Code {
            switch self {
            case .foreignWAL, .foreignRollback, .foreignWithUserVersion, .foreignWithHighUserVersion, .emptyFile: .notALoupeStore
            case .newerSchema, .unknownMigration: .newerSchema
            case .text: .notADatabase
            case .cutShort, .damagedHeader: .damaged
            }
        }
    }

    @Test("refused files keep their bytes and mode, and gain no -wal or -shm", arguments: Refused.allCases)
    func refused(_ refused: Refused) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try refused.make(at: path)
        let before = try FileSnapshot(path)
        for readOnly in [false, true] {
            let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: readOnly) }
            #expect(error.code == refused.code, "\(readOnly ? "reader" : "writer"): \(error)")
            #expect(try FileSnapshot(path) == before, "\(readOnly ? "reader" : "writer")")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["traces.sqlite"])
    }

    @Test("a writer refuses a store made read-only; a reader still reads it; neither changes it")
    func readOnlyFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 3)
        #expect(chmod(path, 0o400) == 0)
        let before = try FileSnapshot(path)
        // Root may write a 0400 file; Loupe still obeys the mode.
        let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path) }
        #expect(error.code == .readOnly)
        #expect(error.description.contains("mode is 400"))
        #expect(try FileSnapshot(path) == before)

        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 3)
        try reader.close()
        let after = try FileSnapshot(path)
        #expect(after.bytes == before.bytes && after.mode == before.mode)
    }

    @Test("a store Loupe did not create keeps its mode when written")
    func existingModeKept() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path)
        #expect(chmod(path, 0o640) == 0)
        let store = try SQLiteTraceStore(path: path)
        try store.write([Fixture.simple(9)])
        try store.close()
        #expect(try FileSnapshot(path).mode & 0o777 == 0o640)
    }

    @Test("a new store appears complete and owner-only, with no half-made file left behind")
    func createdWhole() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("new/deeper/traces.sqlite")
        #expect(try SQLiteTraceStore.createIfMissing(path: path, bounds: TraceStoreBounds(maxCount: 7)))
        #expect(try SQLiteTraceStore.createIfMissing(path: path) == false)
        #expect(try FileSnapshot(path).mode & 0o777 == 0o600)
        #expect(try FileSnapshot(folder.file("new"), readBytes: false).mode & 0o777 == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("new/deeper")) == ["traces.sqlite"])
        // Complete before anything is written: any reader (and any later writer) takes it for a store.
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 0)
        #expect(try reader.bounds == TraceStoreBounds(maxCount: 7))
        #expect(try reader.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == SQLiteSchema.version)
    }

    @Test("writers racing to create the same store all open the one store")
    func racingCreation() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            do {
                let store = try SQLiteTraceStore(path: path)
                try store.write([Fixture.simple(index)])
                try store.close()
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try SQLiteTraceStore(path: path, readOnly: true).count() == 6)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.isEmpty)
    }
}

/// Errors collected from several threads.
final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ failure: String) { list.withLock { $0.append(failure) } }
    var all: [String] { list.withLock { $0 } }
}
