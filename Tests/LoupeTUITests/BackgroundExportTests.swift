import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats
@testable import LoupeTUI
import Synchronization
import Testing

/// `:export` runs off the loop's thread: the TUI answers keys while it writes, says how far it got, and a
/// quit in the middle leaves nothing behind. (An export on the loop's thread would wait for the gated store with the
/// loop; the time limit turns that hang into a failure. Five minutes, not one: a run of the whole suite beside
/// callgrind and a release build took the six tests past a minute, each passing alone in 0.7 s.)
@Suite(.timeLimit(.minutes(5))) struct BackgroundExportTests {
    private func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-bg-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test func keysAreAnsweredWhileAnExportRuns() async throws {
        try await withFolder { folder in
            let store = GatedExportStore(try Fixture.store((1...30).map { Fixture.exchange($0) }))
            let (app, screen) = Fixture.app(store)
            let path = folder.appendingPathComponent("all.har").path
            store.hold()
            app.apply(.command(.export, argument: "filtered har \(path)"))
            app.turn(on: screen)
            #expect(app.state.status?.text == "exporting 0 exchanges as HAR to \(path)…")
            #expect(screen.lines[22].contains("exporting 0 exchanges as HAR to "), "\(screen.lines[22])")
            let before = app.state.exchanges.window.selectedRow?.sequence
            screen.press("k", "k")
            app.turn(on: screen)
            #expect(app.state.exchanges.window.selectedRow?.sequence == before.map { $0 - 2 }, "the list moved while the export waited")
            #expect(!FileManager.default.fileExists(atPath: path))
            store.release()
            await app.settle()
            #expect(app.state.status?.text.hasPrefix("wrote 30 exchanges as HAR to \(path)") == true, "\(app.state.status?.text ?? "")")
            #expect(try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: path)).count == 30)
        }
    }

    @Test func quittingDuringAnExportLeavesNoFile() async throws {
        try await withFolder { folder in
            let store = GatedExportStore(try Fixture.store((1...30).map { Fixture.exchange($0) }))
            let (app, screen) = Fixture.app(store)
            store.hold()
            app.apply(.command(.export, argument: "filtered har \(folder.appendingPathComponent("all.har").path)"))
            app.turn(on: screen)
            screen.press("q")
            #expect(!app.turn(on: screen))
            store.release()
            await app.settle()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "no file and no temporary file")
        }
    }

    @Test func exportCancelStopsTheRunningExportAndWritesNothing() async throws {
        try await withFolder { folder in
            let store = GatedExportStore(try Fixture.store((1...30).map { Fixture.exchange($0) }))
            let (app, screen) = Fixture.app(store)
            app.apply(.command(.export, argument: "cancel"))
            #expect(app.state.status == .error("export: none is running"))
            let path = folder.appendingPathComponent("all.har").path
            store.hold()
            app.apply(.command(.export, argument: "filtered har \(path)"))
            app.turn(on: screen)
            app.apply(.command(.export, argument: " cancel "))
            #expect(app.state.status?.text == "cancelling the export…")
            store.release()
            await app.settle()
            #expect(app.state.status?.text == "export to \(path) cancelled; no file was written")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
            #expect(app.turn(on: screen), "the TUI goes on")
        }
    }

    @Test func tabOffersCancelAmongTheExportWords() {
        #expect(CommandCompletion.candidates(for: "c", kind: .command, before: ["export"]) == ["curl", "cancel"])
        #expect(CommandCompletion.candidates(for: "c", kind: .command, before: ["export", "marked"]) == ["curl"])
    }

    @Test func progressIsReportedEveryThousandExchanges() async throws {
        try await withFolder { folder in
            let store = try Fixture.store((1...2_500).map { Fixture.exchange($0) })
            let request = ExportRequest(scope: .filtered, ids: [], query: ExchangeQuery(), format: .har,
                                        path: folder.appendingPathComponent("many.har").path)
            var reports: [Int] = []
            let outcome = TUIExport.run(request, store: store, progress: { reports.append($0) })
            #expect(reports == [1_000, 2_000])
            #expect(outcome.message.text.hasPrefix("wrote 2500 exchanges as HAR"), "\(outcome.message.text)")
            #expect(outcome.clipboard == nil)
        }
    }

    @Test func aCancelledExportRemovesItsPartialFile() async throws {
        try await withFolder { folder in
            let store = try Fixture.store((1...2_500).map { Fixture.exchange($0) })
            let request = ExportRequest(scope: .filtered, ids: [], query: ExchangeQuery(), format: .har,
                                        path: folder.appendingPathComponent("many.har").path)
            let written = Mutex(0)
            let outcome = TUIExport.run(
                request, store: store, isCancelled: { written.withLock { $0 } >= 1_500 },
                progress: { count in written.withLock { $0 = count } })
            #expect(outcome.message.text == "export to \(request.path) cancelled; no file was written")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        }
    }
}

/// A store whose `exchanges(matching:limit:)` (what a filtered export of an in-memory store reads) waits while held.
final class GatedExportStore: TraceStore {
    let inner: InMemoryTraceStore
    private let gate = TestGate()

    init(_ inner: InMemoryTraceStore) { self.inner = inner }

    func hold() { gate.hold() }
    func release() { gate.release() }

    func write(_ exchanges: [TraceExchange]) throws { try inner.write(exchanges) }
    func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
    func count() throws -> Int { try inner.count() }
    func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange] {
        gate.pass()
        return try inner.exchanges(matching: filter, limit: limit)
    }
}
