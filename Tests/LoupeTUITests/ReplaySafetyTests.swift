import Foundation
import Loupe
import LoupeReplay
import LoupeTrace
@testable import LoupeTUI
import Testing

/// Nothing goes out that the user did not approve: what a confirmation holds dies with it, whichever way it ends
/// (issue 25.1), and the question says exactly what `y` sends.
@Suite struct ReplaySafetyTests {
    private static let post = Fixture.exchange(2, method: "POST", url: "https://api.example.com/orders", status: 201)

    private func app(_ replayer: FakeReplayer, editor: ExternalEditor = .init { _ in nil },
                     exchanges: [TraceExchange] = [post]) -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: try! Fixture.store(exchanges), storeName: "/tmp/traces.sqlite",
                               replayer: replayer, timeZone: .gmt, keymap: .standard, history: InMemoryPromptHistory(),
                               editor: editor)
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    /// `R`, the prompt changed to `repeat-replay 5 1`, Enter: the question says 5×, one at a time.
    private func askToRepeatFive(_ app: TUIApp, _ screen: InMemoryTerminal) {
        screen.press("R")
        app.turn(on: screen)
        screen.press(.ctrl("u"))
        screen.type("repeat-replay 5 1")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? y/N · sends POST https://api.example.com/orders 5× (1 at once)"),
                "\(screen.lines[22])")
        #expect(screen.lines[23].contains("y sends it, any other key cancels · POST may change the server"), "\(screen.lines[23])")
        #expect(app.state.replay.pending?.plan == RepeatPlan(times: 5, concurrency: 1))
    }

    /// Then `r` and `y` send the request once: the cancelled count is gone.
    private func replayOnceAfterwards(_ app: TUIApp, _ screen: InMemoryTerminal, _ replayer: FakeReplayer) async {
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? y/N · sends POST https://api.example.com/orders once"), "\(screen.lines[22])")
        #expect(app.state.replay.pending?.plan == nil)
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == [Fixture.id(2)], "one approved, one sent")
    }

    @Test("a cancelled repeat's count never reaches the next replay", arguments: [Key.escape, "n", "q", "j", .enter, .paste("y")])
    func cancelledRepeatDoesNotLeak(_ answer: Key) async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer)
        askToRepeatFive(app, screen)
        screen.press(answer)
        #expect(app.turn(on: screen))
        #expect(app.state.replay == .idle)
        #expect(screen.lines[22].contains("replay cancelled; nothing was sent"))
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        await replayOnceAfterwards(app, screen, replayer)
    }

    @Test func aResizeKeepsTheQuestionOnScreenAndItsAnswerSendsWhatItSays() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer)
        askToRepeatFive(app, screen)
        screen.resize(width: 120, height: 30)
        app.turn(on: screen)
        #expect(screen.lines[28].contains("sends POST https://api.example.com/orders 5× (1 at once)"))
        screen.resize(width: 80, height: 24)
        app.turn(on: screen)
        screen.press(.escape)
        app.turn(on: screen)
        await replayOnceAfterwards(app, screen, replayer)
    }

    @Test func aNewFilterAfterACancelledRepeatSendsOnce() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer)
        askToRepeatFive(app, screen)
        screen.press("f")
        app.turn(on: screen)
        #expect(app.state.prompt == nil, "the key answered the question; it opened nothing")
        screen.press("f")
        screen.type("~m POST")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.session.filterText == "~m POST")
        await replayOnceAfterwards(app, screen, replayer)
    }

    @Test func anEditAfterACancelledRepeatSendsTheEditOnce() async {
        let replayer = FakeReplayer()
        let editor = ExternalEditor { path in
            try? (try! String(contentsOfFile: path, encoding: .utf8) + "{}").write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let (app, screen) = app(replayer, editor: editor)
        askToRepeatFive(app, screen)
        screen.press(.escape)
        app.turn(on: screen)
        screen.press("e")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? y/N · sends the edited POST https://api.example.com/orders once"), "\(screen.lines[22])")
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == [Fixture.id(2)])
    }

    @Test func yOnARepeatSendsExactlyTheCountShown() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer)
        askToRepeatFive(app, screen)
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == Array(repeating: Fixture.id(2), count: 5))
    }

    @Test func rSaysWhichNumberIsWhich() {
        let (app, screen) = app(FakeReplayer())
        screen.press("R")
        app.turn(on: screen)
        #expect(screen.lines[23].contains("repeat 10 times, 2 at once"), "\(screen.lines[23])")
        screen.press(.backspace, .backspace)
        app.turn(on: screen)
        #expect(screen.lines[23].contains("repeat 10 times, 1 at once"), "\(screen.lines[23])")
        screen.type(" 0")
        app.turn(on: screen)
        #expect(screen.lines[23].contains("CONCURRENCY must be a whole number from 1 to 64"), "\(screen.lines[23])")
    }

    // MARK: Redacted credentials (issue 25.21)

    private static let authorized = Fixture.exchange(
        3, url: "https://api.example.com/me",
        requestHeaders: [TraceHeader(name: "Authorization", value: RedactionPolicy.marker), TraceHeader(name: "Accept", value: "*/*")])

    @Test func aRedactedCredentialIsSaidBeforeSendingEvenForAGet() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer, exchanges: [Self.authorized])
        screen.press("r")
        app.turn(on: screen)
        #expect(replayer.replayedIDs.isEmpty)
        #expect(app.state.replay.pending?.reasons
                == ["Authorization was redacted when recorded and is left out (set LOUPE_REPLAY_AUTHORIZATION to send one)"])
        #expect(screen.lines[22].contains("Replay? y/N · sends GET https://api.example.com/me once"))
        #expect(screen.lines[23].contains("any other key cancels · Authorization was redacted when recorded"))
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == [Fixture.id(3)])
    }

    @Test func aCredentialFromTheEnvironmentFillsOnlyARedactedHeader() {
        let environment = ["LOUPE_REPLAY_AUTHORIZATION": "Bearer fresh", "LOUPE_REPLAY_X_API_KEY": "k",
                           "LOUPE_REPLAY_COOKIE": "a=1\r\nInjected: 1"]
        #expect(ReplayCredentials.supplied(for: Self.authorized, environment: environment).map(\.name) == ["Authorization"])
        #expect(ReplayCredentials.supplied(for: Self.post, environment: environment).isEmpty, "no credential was recorded")
        var cookie = Self.authorized
        cookie.requestHeaders = [TraceHeader(name: "Cookie", value: RedactionPolicy.marker)]
        #expect(ReplayCredentials.supplied(for: cookie, environment: environment).isEmpty, "CR/LF is never sent")
        #expect(ReplayCredentials.environmentName(for: "X-Api-Key") == "LOUPE_REPLAY_X_API_KEY")
        #expect(ReplayCredentials.notes(Self.authorized, supplied: ["authorization"])
                == ["Authorization from $LOUPE_REPLAY_AUTHORIZATION"])
    }

    // MARK: Bracketed paste (issue 26.7)

    @Test func aPasteIsTextInAPromptEvenItsEscAndItsEnter() {
        let (app, screen) = app(FakeReplayer())
        screen.press("f")
        screen.paste("~m\u{1B} PO\nST\u{1B}")
        app.turn(on: screen)
        #expect(app.state.prompt?.kind == .filter, "the Esc inside the paste did not cancel")
        #expect(app.state.prompt?.input.text == "~m PO ST")
    }

    @Test func aPasteOutsideAPromptRunsNothing() async {
        let replayer = FakeReplayer()
        let (app, screen) = app(replayer)
        screen.paste("rRyq")
        #expect(app.turn(on: screen), "q inside a paste does not quit")
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        #expect(app.state.replay == .idle)
        #expect(screen.lines[22].contains("a paste goes into a prompt"))
    }

    @Test func tenThousandPastedCharactersAreCheckedOnce() {
        let (app, screen) = app(FakeReplayer())
        let text = String(repeating: "~u /orders/ & ", count: 10_000 / 14 + 1).prefix(10_000)
        for kind in ["f", "/", ":"] {
            screen.press(Key.char(Character(kind)))
            app.turn(on: screen)
            let clock = ContinuousClock()
            let start = clock.now
            screen.paste(String(text))
            app.turn(on: screen)
            let elapsed = clock.now - start
            #expect(app.state.prompt?.input.text.count == 10_000)
            #expect(app.state.prompt?.needsCheck == false)
            // Generous for a debug build on a shared machine; the frame's figure is in Benchmarks/README.md.
            #expect(elapsed < .seconds(1), "\(kind): \(elapsed)")
            screen.press(.escape)
            app.turn(on: screen)
        }
    }

    @Test func keysTypedInOneTurnAreCheckedOnceBeforeTheFrame() {
        let (app, _) = app(FakeReplayer())
        app.handle("f")
        for character in "~c 9x" { app.handle(.char(character)) }
        #expect(app.state.prompt?.needsCheck == true, "no parse per key")
        #expect(app.state.prompt?.problem == nil)
        _ = app.render()
        #expect(app.state.prompt?.needsCheck == false)
        #expect(app.state.prompt?.problem != nil, "checked before the frame")
        app.handle(.enter)
        #expect(app.state.prompt != nil, "Enter checks first and refuses a broken filter")
    }

    // MARK: Export scope (issue 25.17)

    @Test func xWithAFilterAndNoMarksOffersTheFilteredSet() {
        let (app, screen) = app(FakeReplayer(), exchanges: [Self.post, Self.authorized])
        screen.press("x")
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text.hasPrefix("export selected har ") == true)
        screen.press(.escape, "f")
        screen.type("~m POST")
        screen.press(.enter, "x")
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text.hasPrefix("export filtered har ") == true, "\(app.state.prompt?.input.text ?? "")")
        screen.press(.escape, "m", "x")
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text.hasPrefix("export marked har ") == true)
    }
}
