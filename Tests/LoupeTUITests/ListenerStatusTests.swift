import Foundation
import LoupeTUI
import Synchronization
import Testing

/// `loupe tui --listen` printed the link and then covered it with the screen (issue 43.14): the inspector itself
/// shows it (the empty list, screen 5, `:link`) and says when the listener refused a connection.
@Suite struct ListenerStatusTests {
    static let link = "LOUPE_LINK=loupe://s3cret@127.0.0.1:7420?fp=sha256:ab12"

    /// What the listener reports, changed by a test between polls.
    final class Listener: Sendable {
        let status: Mutex<ListenerStatus>
        init(_ status: ListenerStatus) { self.status = Mutex(status) }
    }

    static func app(_ listener: Listener?, rules: Bool = false) throws -> (InspectorApp, InMemoryScreen) {
        let store = try Fixture.store([])
        let app = InspectorApp(store: store, storeName: "/tmp/linked.sqlite", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: 100, height: 24),
                               now: { Fixture.clock.now },
                               rules: rules ? RulesScreenTests.FakeRules([]) : nil)
        if let listener { app.listenerStatus = { listener.status.withLock { $0 } } }
        let screen = InMemoryScreen(width: 100, height: 24)
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
