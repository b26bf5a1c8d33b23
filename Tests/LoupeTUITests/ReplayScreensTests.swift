import Foundation
import Loupe
import LoupeTrace
import LoupeTUI
import Synchronization
import Testing

/// `d` (a replay against its original), `R` (repeat with a summary) and `e` (edit in $EDITOR, then send).
@Suite struct ReplayScreensTests {
    static let original = Fixture.exchange(
        1, url: "https://api.example.com/items", status: 200,
        responseBody: Fixture.body(#"{"items":[{"id":1,"price":10},{"id":2,"price":12}],"total":2}"#))
    static var replayed: TraceExchange {
        var replay = Fixture.exchange(
            2, url: "https://api.example.com/items", status: 201, replayOf: Fixture.id(1),
            responseBody: Fixture.body(#"{"items":[{"id":1,"price":10},{"id":2,"price":15}],"total":2,"next":"c2"}"#))
        replay.responseHeaders.append(TraceHeader(name: "Date", value: "Tue, 14 Nov 2023 22:13:22 GMT"))
        return replay
    }
    static let text = Fixture.exchange(3, url: "https://api.example.com/readme", status: 200,
                                       responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain")],
                                       responseBody: Fixture.body("one\ntwo\nthree\nfour\n"))
    static var textReplay: TraceExchange {
        Fixture.exchange(4, url: "https://api.example.com/readme", status: 200, replayOf: Fixture.id(3),
                         responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain")],
                         responseBody: Fixture.body("one\n2\nthree\nfour\nfive\n"))
    }

    @Test func dShowsTheDifferencesUnifiedAndNMovesBetweenThem() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Self.original, Self.replayed, Self.text, Self.textReplay]))
        screen.press("g", "j", "d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-json")
        screen.press(.escape, "G", "d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-text-unified")
        screen.press("n")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("difference 1 of 1"))
    }

    @Test func dIsSideBySideAt120Columns() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Self.text, Self.textReplay]), width: 120, height: 30)
        screen.press("d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-text-side-by-side")
    }

    @Test func dOnAnOriginalSaysWhatItNeeds() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Self.original]))
        screen.press("d")
        app.turn(on: screen)
        #expect(app.state.top is ExchangesScreen)
        #expect(screen.lines[22].contains("d compares a replay (↻) with its original"))
    }

    @Test func capitalRRepeatsAndSummarises() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = Fixture.app(try Fixture.store([Self.original]), replayer: replayer)
        screen.press("R")
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text == "repeat-replay 10 2")
        screen.press(.enter)
        app.turn(on: screen)
        await app.settle()
        app.turn(on: screen)
        #expect(replayer.replayedIDs == Array(repeating: Fixture.id(1), count: 10))
        #expect(app.state.status?.text.hasPrefix("repeated 10× GET api.example.com/items: 200 ×10 · 0 errors · p50 12 ms p95 12 ms p99 12 ms") == true)
        app.apply(.command(.repeatReplay, argument: "0 2"))
        app.turn(on: screen)
        #expect(screen.lines[22].contains("TIMES must be a whole number from 1 to 10,000, got '0'"))
    }

    @Test func capitalROnAPostAsksFirst() async throws {
        let replayer = FakeReplayer()
        let post = Fixture.exchange(5, method: "POST", url: "https://api.example.com/orders")
        let (app, screen) = Fixture.app(try Fixture.store([post]), replayer: replayer)
        app.apply(.command(.repeatReplay, argument: "3"))
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? y/N"))
        #expect(app.state.status?.text.contains("sends POST https://api.example.com/orders 3× (1 at once)") == true)
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs.count == 3)
    }

    @Test func eSendsTheEditedRequestAsAReplayOfTheOriginal() async throws {
        let replayer = FakeReplayer()
        let editor = ExternalEditor { path in
            let text = try! String(contentsOfFile: path, encoding: .utf8)
            try! text.replacingOccurrences(of: "/items", with: "/items?page=2")
                .replacingOccurrences(of: "Accept: application/json", with: "Accept: text/csv")
                .write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let (app, screen) = appWithEditor(editor, replayer: replayer)
        screen.press("e")
        app.turn(on: screen)
        // Even a GET asks after an edit, and says what changed (issue 43.1).
        #expect(screen.lines[22].hasPrefix(" Replay? y/N · sends the edited GET https://api.example.com/items?page=2 once"), "\(screen.lines[22])")
        #expect(app.state.replay.pending?.reasons == ["changed: URL /items → /items?page=2, header Accept changed"])
        await app.settle()
        #expect(replayer.replayed.isEmpty)
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        let sent = try #require(replayer.replayed.first)
        #expect(sent.id == Fixture.id(1), "recorded as a replay of the original")
        #expect(sent.url == "https://api.example.com/items?page=2")
        #expect(sent.requestHeaders == [TraceHeader(name: "Accept", value: "text/csv")])
    }

    @Test func anUnparsableEditIsKeptAndReopened() async throws {
        let replayer = FakeReplayer()
        let opened = Mutex<[String]>([])
        let editor = ExternalEditor { path in
            let text = try! String(contentsOfFile: path, encoding: .utf8)
            opened.withLock { $0.append(text) }
            if opened.withLock({ $0.count }) == 1 {
                try! "GET https://api.example.com/items HTTP/1.1\nthis is not a header\n".write(toFile: path, atomically: true, encoding: .utf8)
            }
            return nil
        }
        let (app, screen) = appWithEditor(editor, replayer: replayer)
        screen.press("e")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("edit: line 2: expected a header 'Name: value'"))
        #expect(replayer.replayed.isEmpty)
        screen.press("e")
        app.turn(on: screen)
        #expect(opened.withLock { $0.last } == "GET https://api.example.com/items HTTP/1.1\nthis is not a header\n")
    }

    private func appWithEditor(_ editor: ExternalEditor, replayer: FakeReplayer) -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: try! Fixture.store([Self.original]), storeName: "/tmp/traces.sqlite",
                               replayer: replayer, timeZone: .gmt, keymap: .standard, history: InMemoryPromptHistory(),
                               editor: editor)
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }
}
