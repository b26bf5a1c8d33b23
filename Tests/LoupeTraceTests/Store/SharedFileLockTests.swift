import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A viewer and a writer on one file in one process (the TUI replaying into the store it shows) must keep
/// their SQLite locks: otherwise another process's connection takes itself for the last one, deletes the `-wal`
/// file when it closes, and what this process commits next is lost.
@Suite("Stores sharing a file in one process")
struct SharedFileLockTests {
    /// Opens the file in another process with Python's sqlite3 (as `sqlite3` or another tool would), counts the
    /// exchanges and closes: that close is where a connection that believes it is the last deletes the `-wal` file.
    static func countElsewhere(_ path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("SELECT count(*) FROM exchange").fetchone()[0])
            db.close()
            """, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("a writer opened while a viewer is open keeps both connections' locks: commits survive other processes")
    func writerOpenedBesideAViewer() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("shared.sqlite")
        let first = try SQLiteTraceStore(path: path)
        try first.write([Fixture.fullExchange()])
        try first.close()

        let viewer = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try viewer.recent(limit: 10).count == 1)
        #expect(OpenStoreFiles.isOpen(path))
        let writer = try SQLiteTraceStore(path: path)
        #expect(try Self.countElsewhere(path) == 1)
        try writer.write([Fixture.fullExchange()])
        #expect(try Self.countElsewhere(path) == 2)
        #expect(try viewer.recent(limit: 10).count == 2)
        withExtendedLifetime((viewer, writer)) {}
    }

    @Test("the registry counts each open store and forgets the file when the last one goes")
    func registryFollowsStores() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("counted.sqlite")
        var first: SQLiteTraceStore? = try SQLiteTraceStore(path: path)
        var second: SQLiteTraceStore? = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(OpenStoreFiles.isOpen(path))
        first = nil
        #expect(OpenStoreFiles.isOpen(path))
        second = nil
        #expect(!OpenStoreFiles.isOpen(path))
        withExtendedLifetime((first, second)) {}
    }
}
