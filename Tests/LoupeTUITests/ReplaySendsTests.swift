import Foundation
import Loupe
import LoupeTrace
import LoupeReplay
@testable import LoupeTUI
import Synchronization
import Testing

/// Issue 43: nothing leaves without approval (an aborted edit, a PUT or DELETE, a repeat that must stop) and the
/// record is what went on the wire (the bytes of an edited body, every send of a stopped repeat).
@Suite struct ReplaySendsTests {
    /// `{"a":"0123456789ab"}`: 20 bytes, no newline at the end, as a signed body would be.
    static let signedBody = #"{"a":"0123456789ab"}"#

    static func recorded(_ method: String, body: String? = nil) -> TraceExchange {
        Fixture.exchange(7, method: method, url: "http://127.0.0.1:8080/accounts/42", status: 200,
                         requestBody: body.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count, isTruncated: false) })
    }

    private func app(_ exchange: TraceExchange, replayer: any ExchangeReplaying,
                     editor: ExternalEditor) -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: try! Fixture.store([exchange]), storeName: "/tmp/traces.sqlite",
                               replayer: replayer, timeZone: .gmt, keymap: .standard, history: InMemoryPromptHistory(),
                               editor: editor)
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    /// An editor that changes the file's text with `change`, as vim's `:wq` does (vim ends the file with a newline).
    static func editing(_ change: @escaping @Sendable (String) -> String) -> ExternalEditor {
        ExternalEditor { path in
            var text = change(try! String(contentsOfFile: path, encoding: .utf8))
            if !text.hasSuffix("\n") { text += "\n" }
            try! text.write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
    }

    // MARK: 43.1: an aborted editor sends nothing

    @Test("e, then an editor quit without saving (vim's :q!) sends nothing, whatever the method",
          arguments: ["GET", "PUT", "DELETE", "POST"])
    func anUntouchedFileSendsNothing(_ method: String) async {
        let replayer = FakeReplayer()
        let (app, screen) = app(Self.recorded(method, body: method == "GET" ? nil : Self.signedBody),
                                replayer: replayer, editor: ExternalEditor { _ in nil })
        screen.press("e")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayed.isEmpty)
        #expect(app.state.replay == .idle)
        #expect(screen.lines[22].hasPrefix(" edit: the file was not changed; nothing was sent"), "\(screen.lines[22])")
        #expect(!screen.lines.joined().contains("edited"), "no question about an edit that was not made")
    }

    @Test("a replay's editor file is in a private directory, removed afterwards with what the editor left")
    func theEditorsFileIsPrivateAndRemoved() async throws {
        let seen = Mutex<(directory: String, mode: mode_t)?>(nil)
        let editor = ExternalEditor { path in
            let directory = (path as NSString).deletingLastPathComponent
            var info = stat()
            _ = stat(directory, &info)
            seen.withLock { $0 = (directory, info.st_mode & 0o777) }
            _ = FileManager.default.createFile(atPath: directory + "/.swap.swp", contents: Data("x".utf8))  // as vim leaves
            return nil
        }
        let (app, screen) = app(Self.recorded("DELETE"), replayer: FakeReplayer(), editor: editor)
        screen.press("e")
        app.turn(on: screen)
        await app.settle()
        let (directory, mode) = try #require(seen.withLock { $0 })
        #expect(mode == 0o700)
        #expect((directory as NSString).lastPathComponent.hasPrefix("loupe-edit-"))
        #expect(!FileManager.default.fileExists(atPath: directory), "the directory and the swap file are removed")
        #expect(screen.lines[22].contains("edit: the file was not changed; nothing was sent"))
    }

    @Test func anEditorThatFailsSendsNothing() async {
        let replayer = FakeReplayer()
        let editor = ExternalEditor { path in
            try! "DELETE http://127.0.0.1:8080/accounts/43 HTTP/1.1\n\n".write(toFile: path, atomically: true, encoding: .utf8)
            return "the editor 'vim' exited with status 1"
        }
        let (app, screen) = app(Self.recorded("DELETE"), replayer: replayer, editor: editor)
        screen.press("e")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayed.isEmpty)
        #expect(screen.lines[22].contains("edit: the editor 'vim' exited with status 1; nothing was sent"))
    }

    @Test("saving the text as it was (vim's :wq, which adds a final newline) sends nothing")
    func savingTheSameRequestSendsNothing() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(Self.recorded("PUT", body: Self.signedBody), replayer: replayer,
                                editor: Self.editing { $0 })
        screen.press("e")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayed.isEmpty)
        #expect(screen.lines[22].contains("edit: the request is as recorded; nothing was sent (r replays it)"))
    }

    @Test("a real edit always asks, for every method, listing what changed; y sends it once",
          arguments: ["GET", "HEAD", "PUT", "DELETE"])
    func aRealEditAlwaysAsks(_ method: String) async {
        let replayer = FakeReplayer()
        let (app, screen) = app(Self.recorded(method), replayer: replayer,
                                editor: Self.editing { $0.replacingOccurrences(of: "/accounts/42", with: "/accounts/43") })
        screen.press("e")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayed.isEmpty)
        #expect(screen.lines[22].hasPrefix(" Replay? y/N · sends the edited \(method) http://127.0.0.1:8080/accounts/43 once"),
                "\(screen.lines[22])")
        #expect(app.state.replay.pending?.reasons.first == "changed: URL /accounts/42 → /accounts/43")
        if method == "DELETE" { ScreenSnapshot.check(screen, "edit-delete-question") }
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayed.map(\.url) == ["http://127.0.0.1:8080/accounts/43"])
    }

    // MARK: 43.11: an edit keeps the bytes the user did not change

    @Test("a header edit keeps a 20-byte body at 20 bytes, though the editor ends the file with a newline")
    func anEditKeepsTheBodyBytes() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = app(Self.recorded("POST", body: Self.signedBody), replayer: replayer,
                                editor: Self.editing { $0.replacingOccurrences(of: "Accept: application/json", with: "Accept: text/plain") })
        screen.press("e")
        app.turn(on: screen)
        #expect(app.state.replay.pending?.reasons.first == "changed: header Accept changed")
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        let sent = try #require(replayer.replayed.first)
        #expect(sent.requestBody?.data == Data(Self.signedBody.utf8))
        #expect(sent.requestBody?.size == 20)
    }

    @Test("bytes kept: CR LF inside a body, a binary body left alone, an edited body without the editor's newline")
    func editableRequestKeepsBytes() throws {
        var crlf = Self.recorded("POST", body: "a=1\r\nb=2")
        let text = EditableRequest.text(of: crlf)
        #expect(try EditableRequest.request(from: text + "\n", original: crlf).requestBody == crlf.requestBody)
        let binary = TraceBody(data: Data([0xFF, 0x00, 0xC3, 0x28, 0x0A]), size: 5, isTruncated: false)
        crlf.requestBody = binary
        let binaryText = EditableRequest.text(of: crlf)
        let header = binaryText.replacingOccurrences(of: "Accept: application/json", with: "Accept: */*")
        let edited = try EditableRequest.request(from: header, original: crlf)
        #expect(edited.requestBody == binary, "shown with replacement characters, sent as recorded")
        #expect(edited.requestHeaders == [TraceHeader(name: "Accept", value: "*/*")])
        let changed = try EditableRequest.request(
            from: "POST http://127.0.0.1:8080/accounts/42 HTTP/1.1\r\nAccept: */*\r\n\r\n{\"a\":\"1\"}\n", original: Self.recorded("POST", body: Self.signedBody))
        #expect(changed.requestBody?.data == Data(#"{"a":"1"}"#.utf8), "the editor's final newline is not the body's")
        #expect(changed.requestHeaders == [TraceHeader(name: "Accept", value: "*/*")], "CR LF in the head is a line end")
    }

    @Test("the changes, by name and size, never by header value")
    func requestChanges() {
        let old = Self.recorded("POST", body: Self.signedBody)
        var new = old
        new.method = "PUT"
        new.url = "http://127.0.0.1:8080/accounts/42?dry=1"
        new.requestHeaders = [TraceHeader(name: "X-Secret", value: "s3cr3t")]
        new.requestBody = TraceBody(data: Data("{}".utf8), size: 2, isTruncated: false)
        let summary = RequestChanges.summary(from: old, to: new)
        #expect(summary == ["method POST → PUT", "URL /accounts/42 → /accounts/42?dry=1", "header Accept removed",
                            "header X-Secret added", "body 20 → 2 bytes"])
        #expect(!summary.joined().contains("s3cr3t"))
        #expect(RequestChanges.summary(from: old, to: old).isEmpty)
    }

    @Test("d on an edited replay shows what the request changed, not only the answers")
    func theDiffOfAnEditedReplayShowsTheRequest() throws {
        let original = Fixture.exchange(1, url: "https://api.example.com/items", status: 200,
                                        responseBody: Fixture.body(#"{"total":2}"#))
        let replay = Fixture.exchange(2, method: "GET", url: "https://api.example.com/items?page=2", status: 200,
                                      replayOf: Fixture.id(1),
                                      requestHeaders: [TraceHeader(name: "Accept", value: "text/csv")],
                                      responseBody: Fixture.body(#"{"total":3}"#))
        let (app, screen) = Fixture.app(try Fixture.store([original, replay]))
        screen.press("d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-edited-replay")
        #expect(screen.lines.contains { $0.contains("sent GET https://api.example.com/items?page=2") })
        #expect(screen.lines.contains { $0.contains("request edited: URL /items → /items?page=2, header Accept changed") })
    }

    // MARK: 43.3: a running repeat stops on Esc, and quitting loses nothing

    /// R with `times` and `concurrency` on a GET (no question): the first sends are in flight, held by the gate.
    private func repeating(_ times: Int, _ concurrency: Int) -> (TUIApp, InMemoryTerminal, RecordingGate) {
        let gate = RecordingGate()
        let (app, screen) = app(Self.recorded("GET"), replayer: gate, editor: ExternalEditor { _ in nil })
        screen.press("R", .ctrl("u"))
        screen.type("repeat-replay \(times) \(concurrency)")
        screen.press(.enter)
        app.turn(on: screen)
        return (app, screen, gate)
    }

    /// Waits (without sleeping) until `count` sends have reached the gate.
    private func untilStarted(_ count: Int, _ gate: RecordingGate) async {
        await gate.untilStarted(count)
        #expect(gate.started == count)
    }

    @Test("Esc stops a running repeat: no more are sent, those in flight end, and it says stopped after N of M")
    func escStopsARepeat() async {
        let (app, screen, gate) = repeating(2_000, 2)
        await untilStarted(2, gate)
        #expect(screen.lines[22].hasPrefix(" repeating GET 127.0.0.1/accounts/42 2,000× … Esc stops it"), "\(screen.lines[22])")
        screen.press(.escape)
        app.turn(on: screen)
        #expect(screen.lines[22].contains("stopping the repeat"), "\(screen.lines[22])")
        gate.open(2)
        await app.settle()
        app.turn(on: screen)
        #expect(gate.started == 2, "nothing started after Esc")
        #expect(gate.finished == 2, "the two in flight ended")
        #expect(screen.lines[22].hasPrefix(" stopped after 2 of 2,000 · GET 127.0.0.1/accounts/42: 200 ×2 · 0 errors"),
                "\(screen.lines[22])")
        #expect(app.state.replay == .idle)
        #expect(screen.lines[23].hasPrefix(" · p50 5.0 ms p95 5.0 ms p99 5.0 ms · "), "the rate after it is the clock's")
    }

    @Test("r while a repeat runs says how to stop it")
    func rWhileARepeatRuns() async {
        let (app, screen, gate) = repeating(3, 1)
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("a repeat is running: Esc stops it"))
        gate.open(3)
        await app.settle()
        #expect(gate.started == 3)
    }

    @Test("q (or Ctrl-C) during a repeat starts no more and waits for those in flight: each is recorded",
          arguments: [Key.char("q"), .ctrl("c")])
    func quittingWaitsForTheSendsInFlight(_ key: Key) async {
        let (app, screen, gate) = repeating(100, 3)
        await untilStarted(3, gate)
        screen.press(key)
        #expect(app.turn(on: screen) == false)
        #expect(!app.replays.isEmpty, "the sends in flight are not cancelled")
        gate.open(3)
        await app.finishReplays(on: screen)
        #expect(gate.started == 3)
        #expect(gate.finished == 3, "every send that went out ended (and was recorded)")
        #expect(gate.cancelled == 0)
        #expect(app.state.status?.text.hasPrefix("stopped after 3 of 100") == true, "\(app.state.status?.text ?? "")")
    }
}

extension ReplaySendsTests {
    // MARK: 43.6: a redacted query value is said before sending, and taken from the environment

    static let keyed = Fixture.exchange(8, url: "https://api.example.com/items?page=2&api_key=%5BREDACTED%5D", status: 200)

    @Test func aRedactedQueryValueIsSaidBeforeSendingEvenForAGet() async {
        let replayer = FakeReplayer()
        let (app, screen) = Fixture.app(try! Fixture.store([Self.keyed]), replayer: replayer)
        screen.press("r")
        app.turn(on: screen)
        #expect(replayer.replayedIDs.isEmpty)
        #expect(app.state.replay.pending?.reasons
                == ["query api_key was redacted when recorded and is left out (set LOUPE_REPLAY_QUERY_API_KEY to send one)"])
        #expect(screen.lines[23].contains("query api_key was redacted when recorded"))
    }

    @Test func aQueryValueFromTheEnvironmentFillsOnlyARedactedItem() {
        let environment = ["LOUPE_REPLAY_QUERY_API_KEY": "k-1", "LOUPE_REPLAY_QUERY_PAGE": "9",
                           "LOUPE_REPLAY_API_KEY": "header's"]
        #expect(ReplayCredentials.suppliedQuery(for: Self.keyed, environment: environment) == ["api_key": "k-1"])
        #expect(ReplayCredentials.suppliedQuery(for: Self.keyed, environment: ["LOUPE_REPLAY_QUERY_API_KEY": "a\nb"]).isEmpty)
        #expect(ReplayCredentials.queryEnvironmentName(for: "api-key") == "LOUPE_REPLAY_QUERY_API_KEY")
        #expect(ReplayCredentials.notes(Self.keyed, supplied: [], suppliedQuery: ["api_key"])
                == ["query api_key from $LOUPE_REPLAY_QUERY_API_KEY"])
    }
}

/// A replayer whose sends wait for the test to open the gate; it counts sends started, finished and cancelled.
final class RecordingGate: ExchangeReplaying {
    private let state = Mutex<(started: Int, finished: Int, cancelled: Int, permits: Int, waiting: [CheckedContinuation<Void, Never>],
                               watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)])>((0, 0, 0, 0, [], []))

    /// Returns once `count` sends have started.
    func untilStarted(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                guard state.started < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    var started: Int { state.withLock { $0.started } }
    var finished: Int { state.withLock { $0.finished } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Lets `count` sends (waiting now or arriving later) finish.
    func open(_ count: Int) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.permits += count
            let ready = Array(state.waiting.prefix(state.permits))
            state.waiting.removeFirst(ready.count)
            state.permits -= ready.count
            return ready
        }
        for continuation in resumed { continuation.resume() }
    }

    func replay(_ exchange: TraceExchange) async throws -> String {
        try await replayResult(exchange).message
    }

    func replayResult(_ exchange: TraceExchange) async throws -> ExchangeReplayResult {
        await withCheckedContinuation { continuation in
            let (runNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.started += 1
                let reached = state.watchers.filter { $0.count <= state.started }.map(\.continuation)
                state.watchers.removeAll { $0.count <= state.started }
                guard state.permits == 0 else {
                    state.permits -= 1
                    return (true, reached)
                }
                state.waiting.append(continuation)
                return (false, reached)
            }
            for watcher in watchers { watcher.resume() }
            if runNow { continuation.resume() }
        }
        state.withLock {
            $0.finished += 1
            if Task.isCancelled { $0.cancelled += 1 }
        }
        return ExchangeReplayResult(message: "replayed", status: 200, duration: .milliseconds(5))
    }
}
