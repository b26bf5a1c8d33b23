import Foundation
import LoupeTUI
import Synchronization
import Testing

/// `loupe tui --listen` printed the link and then covered it with the screen (issue 43.14): the TUI itself
/// shows it (the empty list, screen 5, `:link`) and says when the listener refused a connection.
@Suite struct ListenerStatusTests {
    static let link = "LOUPE_LINK=loupe://s3cret@127.0.0.1:7420?fp=sha256:ab12"

    /// What the listener reports, changed by a test between polls.
    final class Listener: Sendable {
        let status: Mutex<ListenerStatus>
        init(_ status: ListenerStatus) { self.status = Mutex(status) }
    }

    static func app(_ listener: Listener?, rules: Bool = false, width: Int = 100) throws -> (TUIApp, InMemoryTerminal) {
        let store = try Fixture.store([])
        let app = TUIApp(store: store, storeName: "/tmp/linked.sqlite", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: width, height: 24),
                               now: { Fixture.clock.now },
                               rules: rules ? RulesScreenTests.FakeRules([]) : nil)
        if let listener { app.listenerStatus = { listener.status.withLock { $0 } } }
        let screen = InMemoryTerminal(width: width, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    @Test func theEmptyListShowsTheLinkWhileListening() throws {
        let (_, screen) = try Self.app(Listener(ListenerStatus(link: Self.link)))
        #expect(screen.lines.contains { $0.contains("Waiting for linked apps") })
        #expect(screen.lines.contains { $0.contains(Self.link) })
        // Without a listener the empty list says how to record, as before.
        let (_, plain) = try Self.app(Listener?.none)
        #expect(plain.lines.contains { $0.contains("No exchanges recorded yet") })
        #expect(!plain.lines.contains { $0.contains("LOUPE_LINK") })
    }

    @Test func screenFiveAndTheLinkCommandShowIt() throws {
        let (app, screen) = try Self.app(Listener(ListenerStatus(link: Self.link)), rules: true)
        screen.press("5")
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains(Self.link) })
        screen.press("1", ":")
        screen.type("link")
        screen.press(Key.enter)
        app.turn(on: screen)
        #expect(screen.lines[22].contains(Self.link))
        let (other, otherScreen) = try Self.app(Listener?.none)
        otherScreen.press(":")
        otherScreen.type("link")
        otherScreen.press(Key.enter)
        other.turn(on: otherScreen)
        #expect(otherScreen.lines[22].contains("not listening"))
    }

    /// A real link is about 150 characters: at 80 columns the empty list and screen 5 cut it off, so it could not
    /// be copied from the TUI. Each shows it whole, over as many lines as it takes.
    @Test func aRealLengthLinkIsShownWholeAt80Columns() throws {
        let link = "LOUPE_LINK=loupe://2ISIBi5VACBcS4BWJUGfJOB18JYCnEwhMm7IsShfxBs@127.0.0.1:44327"
            + "?fp=sha256:1b9c928989abb7fdb9781f7721e5098fdfcaf718b634d4bea73faa25b876a0f3"
        /// The screen's text with every line's spaces at either end dropped and the lines run together.
        func joined(_ screen: InMemoryTerminal) -> String {
            screen.lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        }
        let (app, screen) = try Self.app(Listener(ListenerStatus(link: link)), rules: true, width: 80)
        #expect(joined(screen).contains(link), "\(screen.lines.joined(separator: "\n"))")
        #expect(joined(screen).contains("LoupeLink.fromEnvironment()):"))
        screen.press("5")
        app.turn(on: screen)
        #expect(joined(screen).contains(link), "\(screen.lines.joined(separator: "\n"))")
        #expect(joined(screen).contains("send:"))
    }

    @Test func aRefusedConnectionIsSaidOnTheStatusLine() throws {
        let listener = Listener(ListenerStatus(link: Self.link))
        let (app, screen) = try Self.app(listener)
        #expect(!screen.lines[22].contains("refused"))
        listener.status.withLock { $0.refused = 1; $0.lastRefusal = "127.0.0.1:51000: wrong secret" }
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[22].contains("link refused: 127.0.0.1:51000: wrong secret"))
        // The same count again says nothing new.
        screen.press("j")
        app.turn(on: screen)
        app.refresh()
        app.turn(on: screen)
        #expect(!screen.lines[22].contains("link refused"))
    }
}
