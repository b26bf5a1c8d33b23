import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A store with damaged pages says so: never "not an SQLite database", never silence from a read that hit them.
@Suite("Damaged stores")
struct DamagedStoreTests {
    /// A closed store of 300 exchanges with bodies of `bodyBytes`, then 8 pages overwritten with junk from the
    /// middle of the file on.
    static func damagedStore(at path: String, bodyBytes: Int) throws {
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        try store.write((0..<300).map { index in
            var exchange = Fixture.simple(index)
            exchange.responseBody = TraceBody(data: Data(repeating: UInt8(index % 251), count: bodyBytes), size: bodyBytes,
                                              isTruncated: false)
            return exchange
        })
        try store.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(size / 2 / 4096 * 4096))
        try handle.write(contentsOf: Data((0..<(8 * 4096)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try handle.close()
    }

    @Test("a small store with damaged pages is refused as damaged by every open, and left as it is")
    func smallStoreCheckedOnOpen() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try Self.damagedStore(at: path, bodyBytes: 2_000)
        let before = try FileSnapshot(path)
        for readOnly in [true, false] {
            let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: readOnly) }
            #expect(error.code == .damaged, "\(error)")
            #expect(error.description.hasPrefix("\(path): the trace store is damaged (SQLite's check: Page "))
            #expect(!error.description.contains("\n"))
        }
        #expect(try FileSnapshot(path) == before)
    }

    @Test("in a store too big to check on open, reads that reach damaged pages throw a damaged error")
    func largeStoreDamagedPages() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try Self.damagedStore(at: path, bodyBytes: 30_000)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        #expect(size > SQLiteTraceStore.fullCheckLimit)
        for readOnly in [true, false] {
            let store = try SQLiteTraceStore(path: path, readOnly: readOnly, bounds: nil)
            let reads: [(String, () throws -> Void)] = [
                ("exchanges", { _ = try store.exchanges(matching: nil, limit: 1_000) }),
                // A regex with no three letters in a row that every match holds: the text index cannot narrow it, so
                // every body is read (a plain word would be answered from the index without reaching the bodies).
                ("stats", { _ = try storeStats(store, matching: TraceFilter.parse("~b 'z.*z'")) }),
                ("checkIntegrity", { try store.checkIntegrity() }),
            ]
            for (name, read) in reads {
                let error = try #require(throws: TraceStoreError.self, "\(name)") { try read() }
                #expect(error.code == .damaged, "\(name): \(error)")
                #expect(error.description.hasPrefix("\(path): the trace store is damaged"))
                #expect(error.description.contains(".recover"))
            }
            try store.close()
        }
    }

    @Test("a store cut short is reported as damaged when it opens")
    func cutShort() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.store(at: path, count: 300)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        #expect(truncate(path, off_t(size - 4096)) == 0)
        let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path, readOnly: true) }
        #expect(error.code == .damaged)
        #expect(error.message.contains("cut short"))
    }
}
