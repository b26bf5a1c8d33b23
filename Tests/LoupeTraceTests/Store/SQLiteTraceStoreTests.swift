import Foundation
import GRDB
import HTTPTypes
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("SQLiteTraceStore")
struct SQLiteTraceStoreTests {
    @Test("every field of an exchange survives a write and a read")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        var exchange = Fixture.fullExchange()
        exchange.requestBody = TraceBody(data: Data(), size: 0, isTruncated: false)  // empty is not absent
        let bare = Fixture.simple(2)
        try store.write([exchange, bare])

        let read = try #require(try store.exchange(id: exchange.id))
        #expect(read.sequence != nil)
        exchange.sequence = read.sequence
        #expect(read == exchange)
        let readBare = try #require(try store.exchange(id: bare.id))
        #expect(readBare.requestBody == nil && readBare.responseBody == nil && readBare.endedAt == nil)
        #expect(try store.exchange(id: UUID()) == nil)

        let summary = try #require(try store.recent(limit: 10).first)
        #expect(summary == exchange.summary)
        #expect(summary.attemptCount == 2 && summary.duration == 1.5)
    }

    @Test("summaries(after:) returns newer exchanges oldest first; recent(limit:) the newest, oldest first")
    func ordering() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let first = (1...3).map { Fixture.simple($0) }
        try store.write(first)
        try store.write((4...6).map { Fixture.simple($0) })

        let all = try store.summaries(after: 0, limit: 100)
        #expect(all.map(\.operation) == (1...6).map { "op\($0)" })
        #expect(all.map(\.sequence) == all.map(\.sequence).sorted())
        #expect(try store.summaries(after: all[2].sequence, limit: 2).map(\.operation) == ["op4", "op5"])
        #expect(try store.summaries(after: all[5].sequence, limit: 10).isEmpty)
        #expect(try store.recent(limit: 2).map(\.operation) == ["op5", "op6"])
        #expect(try store.count() == 6)

        // Writing an id again replaces it, and it comes back as the newest.
        var replaced = first[0]
        replaced.status = 500
        try store.write([replaced])
        #expect(try store.count() == 6)
        let news = try store.summaries(after: all[5].sequence, limit: 10)
        #expect(news.map(\.id) == [replaced.id] && news.first?.status == 500)
    }

    @Test("a replaced exchange takes the next sequence, without a gap, and its old attempts and events go with it")
    func replacingKeepsSequencesDense() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let full = Fixture.fullExchange()
        try store.write([full, Fixture.simple(1)])
        var again = full
        again.attempts = [full.attempts[0]]
        again.events = []
        // Twice in one batch, and once more beside a new exchange.
        try store.write([again, Fixture.simple(2), again])
        try store.write([Fixture.simple(3), again])

        let all = try store.summaries(after: 0, limit: 100)
        #expect(all.map(\.operation) == ["op1", "op2", "op3", full.operation])
        let sequences = all.map(\.sequence)
        #expect(sequences == [2, 4, 6, 7], "each write of an id takes the next number; only replaced rows leave gaps")
        let stored = try #require(try store.exchange(id: full.id))
        #expect(stored.attempts == again.attempts && stored.events.isEmpty)
        let children = try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM attempt) + (SELECT COUNT(*) FROM event)")
        }
        #expect(children == 1, "the replaced rows' attempts and events are deleted with them")
    }

    @Test("folders are created, and the file and its WAL companions are owner-only (0600)")
    func permissions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("deep/er/traces.sqlite")
        let store = try SQLiteTraceStore(path: path)
        try store.write([Fixture.simple(1)])
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file)")
        }
    }

    @Test("a planted credential never reaches the bytes of the database or its WAL")
    func noSecretsOnDisk() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path)
        let policy = RedactionPolicy(queryItemNames: ["key"], jsonFieldNames: ["password"])
        let inspector = NetworkTraceInspector(store: store, configuration: .init(redaction: policy))
        let id = UUID()
        let client = Fixture.client(
            [.status(200, headers: [.setCookie: "session=SECRET-123"], body: Data(#"{"password":"SECRET-123"}"#.utf8))],
            middlewares: [AuthenticationMiddleware(StaticTokenAuthenticator(token: "SECRET-123"))], observer: inspector, ids: [id])
        _ = try await client.execute(
            Fixture.request("https://planted.example.test/login?key=SECRET-123", method: .post),
            body: .string(#"{"password":"SECRET-123"}"#))
        await inspector.flush()

        let walPath = path + "-wal"
        #expect(FileManager.default.fileExists(atPath: walPath))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.append(try Data(contentsOf: URL(fileURLWithPath: walPath)))
        #expect(bytes.range(of: Data("planted.example.test".utf8)) != nil)  // the exchange is really on disk
        #expect(bytes.range(of: Data("SECRET-123".utf8)) == nil)
        // The client's default operation name leaves the query out, so the secret cannot ride along in it.
        #expect(try store.exchange(id: id)?.operation == "POST /login")
        await inspector.shutdown()
    }

    @Test("a store written by a newer Loupe is refused with a clear error")
    func newerSchema() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        do {
            let store = try SQLiteTraceStore(path: path)
            try store.pool.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
            try store.close()
        }
        for readOnly in [false, true] {
            let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: readOnly) }
            #expect(error.code == .newerSchema)
            #expect(error.description.contains("newer Loupe"))
            #expect(error.description.contains("99"))
        }
    }

    @Test("a file that is not a database is refused with a clear error and left untouched")
    func garbageFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("notes.txt")
        let garbage = Data(String(repeating: "this is not a database\n", count: 200).utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: readOnly) }
            #expect(error.code == .notADatabase)
            #expect(error.description == "\(path): not a Loupe trace store (the file is not an SQLite database)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a read-only open of a missing store fails without creating anything")
    func readOnlyMissing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("missing/traces.sqlite")
        let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: true) }
        #expect(error.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing")))
    }

    @Test("a read-only store sees commits made after it opened, and cannot write")
    func readOnlySeesNewCommits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let writer = try SQLiteTraceStore(path: path)
        try writer.write([Fixture.simple(1)])
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let seen = try reader.recent(limit: 10)
        #expect(seen.map(\.operation) == ["op1"])

        try writer.write([Fixture.simple(2), Fixture.simple(3)])
        #expect(try reader.summaries(after: seen[0].sequence, limit: 10).map(\.operation) == ["op2", "op3"])
        #expect(throws: TraceStoreError.self) { try reader.write([Fixture.simple(4)]) }
    }

    @Test("a read-only open works after the writer has closed and its WAL is gone")
    func readOnlyAfterWriterClosed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        do {
            let writer = try SQLiteTraceStore(path: path)
            try writer.write([Fixture.simple(1), Fixture.simple(2)])
            try writer.close()
        }
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.count() == 2)
    }
}
