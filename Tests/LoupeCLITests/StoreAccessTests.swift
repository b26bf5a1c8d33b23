import Foundation
import Loupe
import LoupeQuery
@testable import loupe
import LoupeTrace
import Testing

/// How commands open stores: viewers read only, the TUI's writer waits for a replay, prunes are told.
@Suite("Opening stores from the command line")
struct StoreAccessTests {
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "loupe-cli-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func exchange(_ index: Int) -> TraceExchange {
        TraceExchange(id: UUID(), operation: "op\(index)", method: "GET", url: "https://api.example.test/\(index)",
                      startedAt: Date(), outcome: .success, status: 200)
    }

    @Test("the TUI's store opens read-only: a store over its bounds keeps every exchange and every byte")
    func viewingNeverPrunes() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/traces.sqlite"
        do {
            let store = try SQLiteTraceStore(path: path, bounds: nil)
            try store.write((0..<20).map(Self.exchange))
            try store.setBounds(TraceStoreBounds(maxCount: 5, maxBytes: nil, maxAge: nil))
            try store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (store, _) = try StoreAccess.openForViewing(path)
        #expect(store.isReadOnly)
        #expect(try store.count() == 20)
        // The replayer opens its writer (which would prune) only when a replay is recorded.
        let replayer = StoreReplayer(path: path)
        await replayer.shutdown()
        try store.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("a missing store is created empty for the TUI, so later recordings appear live")
    func viewingCreatesMissingStore() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/new/traces.sqlite"
        let (store, _) = try StoreAccess.openForViewing(path)
        #expect(store.isReadOnly)
        #expect(try store.count() == 0)
        let writer = try SQLiteTraceStore(path: path)
        try writer.write([Self.exchange(1)])
        #expect(try store.count() == 1)
    }

    @Test("unusable stores are one line each, naming the path once", arguments: [false, true])
    func oneLineRefusals(viewing: Bool) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let open = { viewing ? try StoreAccess.openForViewing(fifo) : try StoreAccess.openForWriting(fifo) }
        let failure = try #require(throws: CommandFailure.self) { _ = try open() }
        #expect(failure.code == 2)
        #expect(failure.message == "\(fifo): a named pipe (FIFO), not a trace store file; give the path of a store file")
    }

    @Test("a prune is told in one line: how many, how much, why, and how to change the bounds")
    func pruneLine() {
        let notice = PruneNotice(
            PruneResult(removedCount: 12, removedBytes: 3_174, remainingCount: 10, remainingBytes: 0, reasons: [.count],
                        isDryRun: false),
            bounds: TraceStoreBounds(maxCount: 10), at: Date(), isAutomatic: true)
        #expect(StoreAccess.pruneLine(notice, path: "s.sqlite") == """
            loupe: s.sqlite: removed the oldest 12 exchanges (3.1 KiB), over 10 exchanges, to keep the store within \
            its bounds (256 MiB, 14 days, at most 10 exchanges; change them with \
            `loupe prune --set-max-bytes/--set-max-age/--set-max-count`)
            """)
    }
}
