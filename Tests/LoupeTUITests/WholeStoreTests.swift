import Foundation
import LoupeQuery
@_spi(Synthetic) import LoupeTrace
import LoupeFilter
import LoupeFormats
import LoupeTUI
import Testing

/// The exchanges list over a real SQLite store larger than the old 10,000-row cap, opened read-only: `g` reaches
/// exchange #1, `G` the newest, and the position is exact wherever keys take it.
@Suite struct WholeStoreTests {
    static let count = 25_000

    private func withStore(_ body: (SQLiteTraceStore, String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-whole-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.sqlite").path
        try SyntheticStore.create(at: path, count: Self.count)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try await body(try SQLiteTraceStore(path: path, readOnly: true), path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "viewing never writes")
    }

    @Test func gReachesTheOldestAndGTheNewest() async throws {
        try await withStore { store, _ in
            let (app, screen) = Fixture.app(store)
            #expect(screen.lines[22].contains("25,000 / 25,000"))
            screen.press("g")
            app.turn(on: screen)
            #expect(screen.lines[22].contains("1 / 25,000"))
            #expect(app.state.exchanges.window.selectedRow?.sequence == 1)
            screen.press(.pageDown, .pageDown, "j")
            app.turn(on: screen)
            #expect(screen.lines[22].contains("\(2 * 20 + 2) / 25,000"))
            screen.press("G")
            app.turn(on: screen)
            #expect(app.state.exchanges.window.selectedRow?.sequence == Int64(Self.count))
        }
    }

    /// Random walks in every order: the position shown always equals the row's rank counted by brute force.
    @Test(arguments: ExchangeSortKey.allCases)
    func thePositionIsExactInEveryOrder(_ key: ExchangeSortKey) async throws {
        try await withStore { store, _ in
            let (app, screen) = Fixture.app(store)
            app.apply(.command(.sort, argument: key.rawValue))
            var generator = SystemRandomNumberGenerator()
            let keys: [Key] = ["j", "k", .pageDown, .pageUp, "g", "G", "v"]
            for step in 0..<40 {
                screen.press(keys.randomElement(using: &generator)!)
                app.turn(on: screen)
                // Every few keys the background count may come back mid-walk; else it is awaited here.
                if step % 3 == 0 { await app.settle() }
                app.turn(on: screen)
                guard !app.state.exchanges.window.rankIsPending else { continue }
                let window = app.state.exchanges.window
                let row = try #require(window.selectedRow)
                let query = app.state.session.query
                #expect(try store.exchangeRank(query, of: row) == window.selectedRank)
                #expect(window.total == Self.count)
                #expect(window.rows.count == 20)
            }
        }
    }

    @Test func aFilterAppliesToTheWholeStoreInSQL() async throws {
        try await withStore { store, _ in
            let (app, screen) = Fixture.app(store)
            screen.type("f~c 5xx")
            screen.press(.enter)
            app.turn(on: screen)
            let expected = try store.exchangeCount(ExchangeQuery(filter: try TraceFilter.parse("~c 5xx")))
            #expect(expected > 0 && expected < Self.count)
            #expect(app.state.exchanges.window.total == expected)
            #expect(app.state.exchanges.window.rows.allSatisfy { ($0.status ?? 0) >= 500 })
        }
    }
}

/// `:export filtered` from a SQLite store larger than the TUI's in-memory export limit writes every exchange.
@Suite struct WholeStoreExportTests {
    @Test func aFilteredExportOfALargeStoreIsStreamedWhole() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-whole-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.sqlite").path
        let count = 100_000 + 7  // past the limit of an export held in memory
        try SyntheticStore.create(at: path, count: count)
        let (app, screen) = Fixture.app(try SQLiteTraceStore(path: path, readOnly: true))
        let har = folder.appendingPathComponent("all.har").path
        app.apply(.command(.export, argument: "filtered har \(har)"))
        await app.settle()
        #expect(app.state.status?.text.hasPrefix("wrote \(count) exchanges as HAR to \(har)") == true,
                "\(app.state.status?.text ?? "")")

        // A filter narrows it (PATCH is 2 % of the synthetic mix), in the store's order.
        let patches = folder.appendingPathComponent("patches.har").path
        screen.press("f")
        screen.type("~m PATCH")
        screen.press(.enter)
        app.turn(on: screen)
        app.apply(.command(.export, argument: "filtered har \(patches)"))
        await app.settle()
        let exported = try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: patches))
        #expect(exported.map(\.method) == Array(repeating: "PATCH", count: exported.count))
        #expect(exported.count > 1_000)
        #expect(exported.map(\.startedAt) == exported.map(\.startedAt).sorted())
    }
}
