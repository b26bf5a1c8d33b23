import Foundation
import Loupe
import LoupeTrace
import LoupeReplay
import LoupeTUI
import Synchronization
import Testing

/// Replay safety in the TUI: unsafe methods ask first, and no burst of keys fires a burst of replays.
@Suite struct ReplayConfirmationTests {
    private let exchanges = [
        Fixture.exchange(1, url: "https://api.example.com/users/1", status: 200),
        Fixture.exchange(2, method: "POST", url: "https://api.example.com/orders", status: 201),
    ]

    /// The app with the POST selected (it is the newest row).
    private func appOnPost(_ replayer: any ExchangeReplaying) throws -> (TUIApp, InMemoryTerminal) {
        Fixture.app(try Fixture.store(exchanges), replayer: replayer)
    }

    @Test func rOnAPostAsksFirstAndSendsNothing() throws {
        let replayer = FakeReplayer()
        let (app, screen) = try appOnPost(replayer)
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? y/N · sends POST https://api.example.com/orders once"))
        #expect(screen.lines[23].contains("POST may change the server"))
        #expect(screen.lastBuffer?[1, 22].style == .error)
        #expect(app.state.replay.pending?.exchange.id == Fixture.id(2))
        #expect(replayer.replayedIDs.isEmpty)
    }

    @Test(arguments: [Key.char("n"), .escape, .char("q"), .char("r")])
    func anyKeyButYCancels(_ key: Key) async throws {
        let replayer = FakeReplayer()
        let (app, screen) = try appOnPost(replayer)
        screen.press("r")
        app.turn(on: screen)
        screen.press(key)
        #expect(app.turn(on: screen), "the answer is consumed: q does not quit here")
        await app.settle()
        #expect(screen.lines[22].contains("replay cancelled"))
        #expect(app.state.replay == .idle)
        #expect(replayer.replayedIDs.isEmpty)
    }

    /// The answer is a key of the keymap (`confirm-replay` in `[confirm]`): rebound, the question names the new key,
    /// and `y` is then just another key that cancels.
    @Test func theAnswerFollowsTheKeymap() async throws {
        let keymap = try Keymap.standard.applying([KeyOverride(context: "confirm", command: "confirm-replay", keys: ["s"])])
        let replayer = FakeReplayer()
        let app = TUIApp(store: try Fixture.store(exchanges), storeName: "s", replayer: replayer, timeZone: .gmt,
                         keymap: keymap, history: InMemoryPromptHistory())
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("Replay? s/N · sends POST"))
        #expect(screen.lines[23].contains("s sends it, any other key cancels"))
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        screen.press("r")
        app.turn(on: screen)
        screen.press("s")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == [Fixture.id(2)])
        #expect(throws: KeymapError.self) {
            try Keymap.standard.applying([KeyOverride(context: "exchanges", command: "confirm-replay", keys: ["z"])])
        }
        #expect(throws: KeymapError.self) {
            try Keymap.standard.applying([KeyOverride(context: "confirm", command: "replay", keys: ["z"])])
        }
    }

    @Test func yReplaysOnce() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = try appOnPost(replayer)
        screen.press("r")
        app.turn(on: screen)
        screen.press("y")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("replaying POST api.example.com/orders…"))
        await app.settle()
        app.turn(on: screen)
        #expect(replayer.replayedIDs == [Fixture.id(2)])
        #expect(screen.lines[22].contains("replayed → 200 in 12 ms"))
        #expect(app.state.replay == .idle)
    }

    @Test func keysTypedBeforeThePromptWasDrawnCannotAnswerIt() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = try appOnPost(replayer)
        screen.type("ry")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        #expect(app.state.replay.pending?.exchange.id == Fixture.id(2))
        #expect(screen.pendingKeys.isEmpty)
    }

    @Test func aThousandRsOnAPostFireAtMostOneReplay() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = try appOnPost(replayer)
        screen.type(String(repeating: "r", count: 1_000))
        while !screen.pendingKeys.isEmpty { app.turn(on: screen) }
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        screen.type("y" + String(repeating: "r", count: 1_000) + "y")
        while !screen.pendingKeys.isEmpty { app.turn(on: screen) }
        await app.settle()
        app.turn(on: screen)
        #expect(replayer.replayedIDs == [Fixture.id(2)])
    }

    @Test func aThousandRsOnAGetFireOneReplay() async throws {
        let replayer = FakeReplayer()
        let (app, screen) = Fixture.app(try Fixture.store([exchanges[0]]), replayer: replayer)
        screen.type(String(repeating: "r", count: 1_000))
        while !screen.pendingKeys.isEmpty { app.turn(on: screen) }
        await app.settle()
        #expect(replayer.replayedIDs == [Fixture.id(1)])
    }

    @Test func rIsIgnoredWhileAReplayIsInFlight() async throws {
        let replayer = GatedReplayer()
        let (app, screen) = Fixture.app(try Fixture.store([exchanges[0]]), replayer: replayer)
        screen.press("r")
        app.turn(on: screen)
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("a replay is still running"))
        replayer.open()
        await app.settle()
        app.turn(on: screen)
        #expect(replayer.count == 1)
        #expect(app.state.replay == .idle)
        screen.press("r")
        app.turn(on: screen)
        replayer.open()
        await app.settle()
        #expect(replayer.count == 2, "after the first ends, r works again")
    }

    /// Idempotent is not safe (issue 43.2): a PUT or DELETE overwrites or deletes whatever is there now, and an
    /// Idempotency-Key only guards the server's own window.
    @Test func onlyGetHeadAndOptionsReplayWithoutAsking() {
        var post = exchanges[1]
        post.requestHeaders.append(TraceHeader(name: "idempotency-key", value: "k-1"))
        #expect(ReplaySafety.reasonToConfirm(post) != nil)
        for method in ["GET", "head", "OPTIONS"] {
            #expect(ReplaySafety.reasonToConfirm(Fixture.exchange(9, method: method)) == nil)
        }
        for method in ["PUT", "DELETE", "TRACE", "POST", "PATCH", "CONNECT", "PURGE"] {
            #expect(ReplaySafety.reasonToConfirm(Fixture.exchange(9, method: method))
                    == "\(method) may change the server (only GET, HEAD and OPTIONS replay without asking)")
        }
    }

    /// `r` and `R` on a recorded PUT or DELETE ask, saying method, target and count; nothing goes out before `y`.
    @Test(arguments: ["PUT", "DELETE"])
    func rAndROnAnIdempotentMethodAsk(_ method: String) async throws {
        let replayer = FakeReplayer()
        let (app, screen) = Fixture.app(try Fixture.store([
            Fixture.exchange(3, method: method, url: "https://api.example.com/accounts/42", status: 200)]), replayer: replayer)
        screen.press("r")
        app.turn(on: screen)
        #expect(screen.lines[22].hasPrefix(" Replay? y/N · sends \(method) https://api.example.com/accounts/42 once"), "\(screen.lines[22])")
        #expect(screen.lines[23].hasPrefix(" y sends it, any other key cancels · \(method) may change the server"))
        screen.press(.escape)
        app.turn(on: screen)
        screen.press("R", .ctrl("u"))
        screen.type("repeat-replay 3 1")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(screen.lines[22].hasPrefix(" Replay? y/N · sends \(method) https://api.example.com/accounts/42 3× (1 at once)"))
        await app.settle()
        #expect(replayer.replayedIDs.isEmpty)
        screen.press("y")
        app.turn(on: screen)
        await app.settle()
        #expect(replayer.replayedIDs == Array(repeating: Fixture.id(3), count: 3))
    }
}

/// A replayer whose replays wait until the test opens the gate, one replay per opening.
final class GatedReplayer: ExchangeReplaying {
    private let state = Mutex<(count: Int, waiting: [CheckedContinuation<Void, Never>], opened: Int)>((0, [], 0))

    var count: Int { state.withLock { $0.count } }

    /// Lets the oldest waiting replay (or the next one to arrive) finish.
    func open() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.opened += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        continuation?.resume()
    }

    func replay(_ exchange: TraceExchange) async throws -> String {
        await withCheckedContinuation { continuation in
            let runNow = state.withLock { state -> Bool in
                state.count += 1
                guard state.opened == 0 else {
                    state.opened -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if runNow { continuation.resume() }
        }
        return "replayed"
    }
}
