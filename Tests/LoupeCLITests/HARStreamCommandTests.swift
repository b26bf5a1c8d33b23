import ArgumentParser
import Foundation
import LoupeQuery
@testable import loupe
import Loupe
import LoupeTrace
import LoupeFormats
import Testing

/// `loupe import` and `loupe export` end to end on real files: what streaming changed must not show.
@Suite("HAR import and export commands")
struct HARStreamCommandTests {
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "loupe-cli-har-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A Loupe HAR of `count` exchanges with bodies, headers, attempts and events.
    static func har(count: Int) throws -> Data {
        try HARExporter().data(for: (0..<count).map(exchange))
    }

    static func exchange(_ index: Int) -> TraceExchange {
        let start = Date(timeIntervalSince1970: 1_700_000_000.123_456 + Double(index))
        let posted: TraceBody? = index % 3 == 0 ? TraceBody(data: Data(#"{"a":"]}"}"#.utf8), size: 10, isTruncated: false) : nil
        let response = TraceBody(data: Data("{\"id\":\(index),\"é\":\"\u{2028}\"}".utf8), size: 30, isTruncated: false)
        let attempt = TraceAttempt(number: 1, startedAt: start, status: 200, notes: ["cache": "miss"])
        let event = TraceEvent(kind: "retry", at: start, message: "m", attributes: ["delayMs": "5"])
        return TraceExchange(
            id: UUID(), operation: "op \(index) ]}\"\\", method: index % 3 == 0 ? "POST" : "GET",
            url: "https://api.example.test/items/\(index)?q=%5D&n=\(index)", startedAt: start,
            endedAt: start.addingTimeInterval(0.25), outcome: .success, status: 200,
            requestHeaders: [TraceHeader(name: "Accept", value: "application/json")], requestBody: posted,
            responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json")], responseBody: response,
            attempts: [attempt], events: [event])
    }

    static func run(_ command: some AsyncParsableCommandRunnable) async -> ErrorReport? {
        do {
            try await command.runCommand()
            return nil
        } catch {
            return LoupeCommand.report(for: error)
        }
    }

    @Test("import then export gives the file back byte for byte, through the streaming paths")
    func roundTrip() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try Self.har(count: 1_200)
        try original.write(to: URL(fileURLWithPath: folder + "/in.har"))
        let store = folder + "/traces.sqlite"
        #expect(await Self.run(try ImportCommand.parse([folder + "/in.har", "--store", store])) == nil)
        #expect(await Self.run(try ExportCommand.parse([store, "--har", folder + "/out.har"])) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/out.har")) == original)

        #expect(await Self.run(try ExportCommand.parse([store, "--har", folder + "/posts.har", "--filter", "~m POST"])) == nil)
        let posts = try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: folder + "/posts.har"))
        #expect(posts.count == 400 && posts.allSatisfy { $0.method == "POST" })
    }

    @Test("a truncated HAR is one line, exit 2, and no store is created")
    func truncated() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = try Self.har(count: 50)
        let cut = whole.prefix(whole.count / 2)
        try cut.write(to: URL(fileURLWithPath: folder + "/cut.har"))
        let report = await Self.run(try ImportCommand.parse([folder + "/cut.har", "--store", folder + "/traces.sqlite"]))
        #expect(report == .failure(
            line: "loupe: \(folder)/cut.har: the file is truncated: the JSON ends at byte \(cut.count) before it is complete",
            code: 2))
        #expect(!FileManager.default.fileExists(atPath: folder + "/traces.sqlite"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/cut.har")) == cut)
    }

    @Test("a HAR with a bad entry late in the file imports nothing into an existing store")
    func badLateEntry() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/traces.sqlite"
        try Self.har(count: 20).write(to: URL(fileURLWithPath: folder + "/good.har"))
        #expect(await Self.run(try ImportCommand.parse([folder + "/good.har", "--store", store])) == nil)
        // The 40th entry's `_loupe` id is not a UUID.
        var text = String(decoding: try Self.har(count: 40), as: UTF8.self)
        let last = try #require(text.range(of: "\"id\" : \"", options: .backwards))
        text.replaceSubrange(last.upperBound..<text.index(last.upperBound, offsetBy: 4), with: "zzzz")
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/bad.har"))
        let report = await Self.run(try ImportCommand.parse([folder + "/bad.har", "--store", store]))
        guard case .failure(let line, 2) = report, let line else {
            Issue.record("expected exit 2, got \(String(describing: report))")
            return
        }
        #expect(line == "loupe: \(folder)/bad.har: log.entries[39]._loupe.id: Attempted to decode UUID from invalid UUID string.")
        let reader = try SQLiteTraceStore(path: store, readOnly: true)
        #expect(try reader.count() == 20)
    }
}

/// The `run()` of an async command, named so one helper runs import and export.
protocol AsyncParsableCommandRunnable {
    func runCommand() async throws
}

extension ImportCommand: AsyncParsableCommandRunnable {
    func runCommand() async throws { try await run() }
}

extension ExportCommand: AsyncParsableCommandRunnable {
    func runCommand() async throws { try await run() }
}
