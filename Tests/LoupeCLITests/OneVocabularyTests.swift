import ArgumentParser
import Foundation
import HTTPTypes
import Loupe
import LoupeFilter
import LoupeQuery
@testable import loupe
import LoupeTrace
import LoupeFormats
import LoupeTUI
import Testing

/// Issue 25: one word per concept and one text per quantity in what the commands print (Documentation/Glossary.md),
/// `show`'s wording for a printed document, de-duplicated exchanges named `#N`, `import` saying what was new, and
/// `prune --vacuum`'s size.
@Suite("Issue 25: the CLI's words and numbers")
struct OneVocabularyTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-vocab-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func summary(_ outcome: ExchangeOutcome, status: Int? = nil) -> TraceSummary {
        TraceSummary(id: UUID(), sequence: 1, operation: "op", method: "GET", url: "http://x.test/", startedAt: start,
                     duration: 0.0123, outcome: outcome, status: status, error: "e", attemptCount: 0, replayOf: nil)
    }

    // MARK: Item 10: a printed document has no tabs

    @Test("show points at the request and response above, not at tabs a CLI does not have")
    func showHasNoTabs() {
        let text = ExchangeText.render(ShowTextTests.fullExchange(), calendar: ShowTextTests.utc)
        #expect(!text.contains("tabs"))
        #expect(text.contains("Headers are kept for the final attempt only: they are under Request and Response above."))
        // The TUI, which has the tabs, still says so.
        let tabs = DetailTabs(exchange: ShowTextTests.fullExchange(), calendar: ShowTextTests.utc)
        #expect(tabs.lines(.attempts, bodyView: .pretty, width: 80).map(\.text).contains {
            $0.contains("see the Request and Response tabs")
        })
    }

    // MARK: Item 11: a de-duplicated exchange names the one it joined by #N

    static func joinedPair() -> (leader: TraceExchange, joiner: TraceExchange) {
        let leaderID = UUID(uuidString: "A1B2C3D4-0000-4000-8000-00000000000A")!
        let leader = TraceExchange(
            id: leaderID, operation: "items", method: "GET", url: "http://x.test/items", startedAt: start,
            endedAt: start.addingTimeInterval(0.1), outcome: .success, status: 200,
            attempts: [TraceAttempt(number: 1, startedAt: start, endedAt: start.addingTimeInterval(0.1), status: 200)])
        let joiner = TraceExchange(
            id: UUID(), operation: "items", method: "GET", url: "http://x.test/items", startedAt: start,
            endedAt: start.addingTimeInterval(0.1), outcome: .success, status: 200,
            events: [TraceEvent(kind: .dedupJoin, at: start.addingTimeInterval(0.001),
                                message: "joined the identical in-flight GET http://x.test/items of exchange \(leaderID)",
                                attributes: ["leader": leaderID.uuidString, "request": "GET http://x.test/items"])])
        return (leader, joiner)
    }

    @Test("a joiner's Attempts and Events say which exchange carried its request, by its number")
    func joinedByNumber() throws {
        let (leader, joiner) = Self.joinedPair()
        let store = InMemoryTraceStore()
        try store.write([leader, joiner])
        let numbers = store.numbers(referencedBy: joiner)
        let stored = try #require(try store.exchange(id: leader.id)?.sequence)
        #expect(numbers == [leader.id: stored])
        let text = ExchangeText.render(joiner, calendar: ShowTextTests.utc, numbers: numbers)
        #expect(text.contains("No attempts of its own: it joined #\(stored), which carried the request."))
        #expect(text.contains("joined #\(stored), which carried the request GET http://x.test/items"))
        #expect(!text.contains("never reached the transport"))
        #expect(!text.contains(leader.id.uuidString), "no uppercase UUID where a person reads")
    }

    @Test("a replay's header names its original by number")
    func replayOfByNumber() throws {
        let (leader, _) = Self.joinedPair()
        var replay = leader
        replay.id = UUID()
        replay.replayOf = leader.id
        let store = InMemoryTraceStore()
        try store.write([leader, replay])
        let text = ExchangeText.render(replay, calendar: ShowTextTests.utc, numbers: store.numbers(referencedBy: replay))
        #expect(text.contains("replay of #1"))
    }

    // MARK: Item 14: one word for a breaker's refusal

    @Test("list and the TUI show a short-circuited call with the same code")
    func shortCircuitedCode() {
        let summary = Self.summary(.shortCircuited)
        #expect(Formatting.status(summary) == "SHRT")
        #expect(Formatting.status(Self.summary(.cancelled)) == "CXL")
        #expect(Formatting.status(Self.summary(.httpError, status: 503)) == "503")
        #expect(SummaryJSON(summary).outcome == "shortCircuited", "JSON keeps its value")
    }

    @Test("a retry refused after a real 503: list says SHRT and the 503 before it (issue 43.8)")
    func refusalAfterARealAnswer() {
        let summary = Self.summary(.shortCircuited, status: 503)
        #expect(Formatting.status(summary) == "SHRT")
        #expect(Formatting.answerBefore(summary) == "  (503, then short-circuited)")
        #expect(Formatting.answerBefore(Self.summary(.shortCircuited)) == "")
        #expect(Formatting.answerBefore(Self.summary(.httpError, status: 503)) == "")
    }

    @Test("~cb short-circuited finds only the refused calls, in memory and in SQLite; ~cb open keeps its meaning")
    func shortCircuitedFilter() throws {
        let refused = TraceExchange(id: UUID(), operation: "op", method: "GET", url: "http://x.test/a", startedAt: Self.start,
                                    endedAt: Self.start, outcome: .shortCircuited, error: "circuit open")
        let sentWhileOpen = TraceExchange(
            id: UUID(), operation: "op", method: "GET", url: "http://x.test/b", startedAt: Self.start, endedAt: Self.start,
            outcome: .success, status: 200,
            attempts: [TraceAttempt(number: 1, startedAt: Self.start, endedAt: Self.start, status: 200, circuitState: "open")])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sqlite = try SQLiteTraceStore(path: folder + "/s.sqlite", bounds: nil)
        try sqlite.write([refused, sentWhileOpen])
        for spelling in ["~cb short-circuited", "~cb shortCircuited", "~cb short_circuited"] {
            let filter = try TraceFilter.parse(spelling)
            #expect(filter.matches(refused) && !filter.matches(sentWhileOpen), "\(spelling)")
            #expect(try sqlite.summaries(matching: filter, limit: 10).map(\.id) == [refused.id], "\(spelling)")
        }
        #expect(try sqlite.summaries(matching: TraceFilter.parse("~cb open"), limit: 10).count == 2)
    }

    @Test("send's --json says it is a body, as curl's, and the glossary says why")
    func sendJSONIsABody() throws {
        let help = SendCommand.helpMessage(columns: 200)
        #expect(help.contains("as curl's --json"))
    }

    @Test("export's help runs its first paragraph on, not broken after 'fields that' (issue 43 walk)")
    func exportHelpParagraph() {
        let help = ExportCommand.helpMessage(columns: 200)
        #expect(help.contains("travels in `_loupe` fields that other tools ignore"), "\(help)")
    }

    // MARK: Item 15: one text per quantity in what the commands print

    @Test("prune's summary counts and sizes as every printer does")
    func pruneSummary() {
        let result = PruneResult(removedCount: 12_345, removedBytes: 794_624, remainingCount: 1_000, remainingBytes: 1536,
                                 reasons: [.count], isDryRun: false)
        let bounds = TraceStoreBounds(maxCount: 1000, maxBytes: nil, maxAge: nil)
        #expect(PruneCommand.describe(result, bounds: bounds)
            == "Removed 12,345 exchanges (776 KiB): over 1000 exchanges; 1,000 remain (1.5 KiB).")
    }

    @Test("list's duration column uses the shared duration text")
    func listDurations() {
        #expect(Quantity.duration(Self.summary(.success, status: 200).duration) == "12 ms")
    }

    // MARK: Item 8: import says what was new

    @Test("importing the same HAR again says every exchange was already there")
    func importAgain() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let har = URL(fileURLWithPath: folder + "/a.har")
        try HARStreamCommandTests.har(count: 3).write(to: har)
        let store = try SQLiteTraceStore(path: folder + "/s.sqlite", bounds: nil)
        let importer = HARImporter()
        _ = try importer.check(contentsOf: har)
        let first = try importer.write(contentsOf: har, into: store)
        let second = try importer.write(contentsOf: har, into: store)
        #expect(first == WriteCount(written: 3, replaced: 0))
        #expect(second == WriteCount(written: 3, replaced: 3))
        #expect(try store.count() == 3)
        #expect(ImportCommand.summary(first, file: "a.har", store: "s") == "Imported 3 exchanges from a.har into s: 3 new")
        #expect(ImportCommand.summary(second, file: "a.har", store: "s")
            == "Imported 3 exchanges from a.har into s: 0 new, 3 already there (replaced by the file's copies)")
        #expect(ImportCommand.summary(WriteCount(written: 2, replaced: 1), file: "a.har", store: "s")
            == "Imported 2 exchanges from a.har into s: 1 new, 1 already there (replaced by the file's copy)")
    }

    // MARK: Item 7: prune --vacuum reports the size the store takes

    @Test("after a vacuum the file is already small, and the size reported is what is on disk")
    func vacuumSize() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.sqlite"
        do {  // a recording, checkpointed into the file when its writer closes
            let writer = try SQLiteTraceStore(path: path, bounds: nil)
            let body = TraceBody(data: Data(repeating: 0x61, count: 4000), size: 4000, isTruncated: false)
            // 600 rows: the empty schema, the search index's tables included, is some 50 pages, which a tenth of a
            // smaller recording would not hold.
            try writer.write((0..<600).map { index in
                TraceExchange(id: UUID(), operation: "op", method: "GET", url: "http://x.test/\(index)", startedAt: Self.start,
                              endedAt: Self.start, outcome: .success, status: 200, responseBody: body)
            })
            // Closed, not dropped: a writer let go with rows still to index finishes the run on the indexer's
            // queue, and the file is checkpointed only when that run lets the last connection go.
            try writer.close()
        }
        func size(_ file: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0
        }
        let before = size(path)
        #expect(before > 1_000_000)
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        _ = try store.prune(TraceStoreBounds(maxCount: 2, maxBytes: nil, maxAge: nil), now: Date(), dryRun: false)
        try store.vacuum()
        // Read while the store is still open, as `prune` prints it: the main file is small now, not at close.
        #expect(size(path) < before / 10, "main file \(size(path)) of \(before)")
        #expect(store.diskBytes == size(path) + size(path + "-wal"))
        #expect(store.diskBytes < before / 10)
    }

    // MARK: Item 23: help texts

    @Test("the filter table reaches an 80-column help unwrapped, in every command that prints it")
    func filterTableUnwrapped() {
        let rows = FilterOption.help.split(separator: "\n").map(String.init)
        #expect(rows.allSatisfy { $0.count <= FilterOption.helpWidth })
        for help in [ListCommand.helpMessage(columns: 80), StatsCommand.helpMessage(columns: 80),
                     ExportCommand.helpMessage(columns: 80)] {
            let lines = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            for row in rows where row.hasPrefix("  ~") {
                #expect(lines.contains(row.trimmingCharacters(in: .whitespaces)), "\(row)")
            }
        }
    }

    @Test("stats --help says the window's default once")
    func statsDefaultOnce() {
        let help = StatsCommand.helpMessage(columns: 200)
        #expect(help.components(separatedBy: "(default: all)").count == 2)
    }
}
