import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import loupe
import Loupe
import LoupeQuery
import LoupeServe
import LoupeTUI
import LoupeTrace
import Testing

/// `loupe tui --serve SOURCE`: the options `serve` reads, read by the same code; the server started inside the TUI
/// records what it serves into the TUI's store, so the rows appear; `Z` starts the sequences over; stopping closes
/// the port.
@Suite("loupe tui --serve")
struct TUIServeTests {
    @Test func serveOptionsAreReadBySharedCodeAndRefusedWithoutServe() throws {
        let command = try #require(try LoupeCommand.parseAsRoot(
            ["tui", "/tmp/seen.sqlite", "--serve", "rec.har", "--port", "0", "--repeat", "cycle", "--serve-filter", "~m GET",
             "--pace", "0.5", "--match-header", "Accept", "--filter", "~served"]) as? TUICommand)
        #expect(command.serve == "rec.har")
        #expect(command.serving.portValue == 0)
        #expect(try command.serving.repeatValue() == .cycle)
        #expect(command.serving.pace == 0.5)
        #expect(command.serving.matchHeaders == ["Accept"])
        #expect(command.serveFilter == "~m GET")
        #expect(command.filter == "~served", "--filter stays the list's filter")
        // Serve's own checks, word for word.
        for (arguments, message) in [
            (["--serve", "x", "--repeat", "twice"], "--repeat takes last, cycle or miss, not 'twice'"),
            (["--serve", "x", "--passthrough", "ftp://h"], "--passthrough takes an absolute http(s) URL: 'ftp://h'"),
            (["--port", "1"], "--port goes with --serve"),
            (["--serve-filter", "~m GET"], "--serve-filter goes with --serve"),
            (["--serve", "x", "--listen", "7420"], "--serve and --listen are one or the other"),
        ] {
            do {
                _ = try LoupeCommand.parseAsRoot(["tui"] + arguments)
                Issue.record("tui \(arguments) was taken")
            } catch {
                #expect(LoupeCommand.message(for: error).contains(message), "\(arguments): \(LoupeCommand.message(for: error))")
            }
        }
        let serve = try #require(try LoupeCommand.parseAsRoot(["serve", "x", "--port", "0", "--repeat", "miss"]) as? ServeCommand)
        #expect(serve.serving.portValue == 0)
        #expect(try serve.serving.repeatValue() == .miss)
        #expect((try LoupeCommand.parseAsRoot(["serve", "x"]) as? ServeCommand)?.serving.portValue == 8080)
    }

    static func get(_ session: URLSession, _ base: String, _ path: String) async throws -> Int {
        let (_, response) = try await session.data(from: URL(string: base + path)!)
        return (response as? HTTPURLResponse)?.statusCode ?? -1
    }

    @Test func servedRequestsAppearLiveAndZStartsTheSequencesOverAndQuittingClosesThePort() async throws {
        let folder = NSTemporaryDirectory() + "loupe-tui-serve-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let recorded = try SQLiteTraceStore(path: folder + "/recorded.sqlite", bounds: nil)
        try recorded.write([503, 200].enumerated().map { offset, status in
            TraceExchange(id: UUID(), operation: "", method: "GET", url: "https://api.example.com/status",
                          startedAt: start.addingTimeInterval(Double(offset)), endedAt: start.addingTimeInterval(Double(offset) + 0.1),
                          outcome: status < 400 ? .success : .httpError, status: status,
                          responseBody: TraceBody(data: Data("\(status)".utf8), size: 3, isTruncated: false))
        })
        try recorded.close()

        let command = try #require(try LoupeCommand.parseAsRoot(
            ["tui", folder + "/seen.sqlite", "--serve", folder + "/recorded.sqlite", "--port", "0"]) as? TUICommand)
        let (store, path) = try StoreAccess.openForWriting(command.store)
        let serving = try await ServingTUI.start(try #require(command.serve), filter: command.serveFilter, flags: command.serving,
                                                 store: store, storePath: path)
        let app = TUIApp(store: store, storeName: path, replayer: nil, timeZone: .gmt, keymap: .standard,
                         history: InMemoryPromptHistory(), size: Size(width: 120, height: 24))
        serving.attach(to: app)
        let screen = InMemoryTerminal(width: 120, height: 24)
        app.refresh()
        app.turn(on: screen)
        let port = serving.running.server.port
        let base = "http://127.0.0.1:\(port)"
        #expect(screen.lines[0].contains("serving \(base)"))
        #expect(screen.lines[22].contains("2 recordings from"))

        let session = URLSession(configuration: .ephemeral)
        var statuses = [try await Self.get(session, base, "/status"), try await Self.get(session, base, "/status")]
        screen.press("Z")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("scenarios reset"))
        statuses.append(try await Self.get(session, base, "/status"))
        statuses.append(try await Self.get(session, base, "/nowhere"))
        #expect(statuses == [503, 200, 503, 404], "Z started the 503-then-200 sequence over; a miss is a 404")

        // The server's writer stores in batches: the rows appear on a later poll, as they would on screen.
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while try store.count() < 4, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        app.refresh()
        app.turn(on: screen)
        let rows = screen.lines.filter { $0.contains("/status") || $0.contains("/nowhere") }
        #expect(rows.count == 4, "\(screen.lines.joined(separator: "\n"))")
        #expect(rows.contains { $0.contains("/nowhere") && $0.contains("404") })
        #expect(try store.exchanges(matching: TraceFilter.served, limit: 10).count == 4, "every request, the miss too, is marked served")

        session.invalidateAndCancel()
        await serving.stop()
        // The port is closed once stop returns: a new connection is refused.
        let closed = URLSession(configuration: .ephemeral)
        await #expect(throws: (any Error).self) { _ = try await Self.get(closed, base, "/status") }
        closed.invalidateAndCancel()
        #expect(serving.stoppedLine == "loupe serve: stopped; \(base) is closed")
        try store.close()
    }
}
