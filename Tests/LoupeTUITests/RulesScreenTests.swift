import Foundation
import Loupe
import LoupeRules
import LoupeTrace
import LoupeTUI
import Synchronization
import Testing

/// Screen 5 and the held rows under the exchanges list, driven by keys against an in-memory set of linked apps; whole
/// screens compared at 80×24.
@Suite struct RulesScreenTests {
    static let now = Fixture.epoch.addingTimeInterval(30)

    /// Linked apps as the listener would report them, and every change the TUI sent.
    final class FakeRules: RulesControl {
        let state: Mutex<[RulesAppState]>
        let sent = Mutex<[RulesChange]>([])
        let changes = Mutex(0)

        init(_ apps: [RulesAppState]) { state = Mutex(apps) }

        func apps() -> [RulesAppState] { state.withLock { $0 } }
        var version: Int { changes.withLock { $0 } }
        func send(_ change: RulesChange, to app: String?) -> Bool {
            sent.withLock { $0.append(change) }
            return true
        }
        var changesSent: [RulesChange] { sent.withLock { $0 } }
    }

    static let heldID = UUID(uuidString: "00000000-0000-0000-0000-0000000000aa")!

    static func apps() throws -> [RulesAppState] {
        let held = HeldRequest(id: heldID, exchangeID: Fixture.id(99), rule: "hold orders", phase: .request,
                               operation: "createOrder", method: "POST", url: "http://127.0.0.1:8080/orders",
                               headers: [TraceHeader(name: "content-type", value: "application/json")],
                               body: Data("{\"sku\":\"A1\",\"qty\":1}".utf8), since: now.addingTimeInterval(-3.2))
        return [RulesAppState(id: "app1", name: "loupe demo", entries: [
            .init(rule: try Rule(name: "getUser down", match: "~op getUser", action: .fault(.status(503))), hits: 12,
                  origin: "viewer 127.0.0.1:7070 #1"),
            .init(rule: try Rule(name: "hold orders", match: "~op createOrder", action: .breakpoint(RuleBreakpoint())),
                  hits: 1, origin: "viewer 127.0.0.1:7070 #1"),
            .init(rule: try Rule(name: "canned users", match: "~op listUsers", action: .mock(RuleMock(status: 200, recordedFrom: 4)),
                                 limits: RuleLimits(enabled: false)), hits: 0, origin: "rules file /tmp/rules.toml"),
        ], held: [held], maxHold: 60)]
    }

    static func app(_ rules: FakeRules?, editor: ExternalEditor = ExternalEditor { _ in "no editor in tests" },
                    wallClock: @escaping @Sendable () -> Date = { now })
        throws -> (TUIApp, InMemoryTerminal) {
        let store = try Fixture.store([Fixture.exchange(1, url: "https://api.example.com/users/1"), Fixture.exchange(2)])
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: 80, height: 24),
                               now: { Fixture.clock.now }, editor: editor, wallClock: wallClock, rules: rules)
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    @Test func screenFiveListsHeldRequestsThenRulesWithTheirHits() throws {
        let rules = FakeRules(try Self.apps())
        let (app, screen) = try Self.app(rules)
        screen.press("5")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "rules-80x24")
        screen.press("j", "t")
        app.turn(on: screen)
        screen.press("d")
        app.turn(on: screen)
        #expect(rules.changesSent == [.setEnabled("getUser down", false), .remove("getUser down")])
        #expect(screen.lines.contains { $0.contains("deleting rule 'getUser down'…") })
        // The app has not answered yet: a poll with nothing new keeps the line as it is.
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("deleting rule 'getUser down'…") })
        // The app reports the rule gone: only now does the line say it was deleted.
        rules.state.withLock { $0[0].entries.removeAll { $0.rule.name == "getUser down" } }
        rules.changes.withLock { $0 += 1 }
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("deleted rule 'getUser down'") })
        #expect(!screen.lines.contains { $0.contains("deleting rule") })
        screen.press("g", "c", "a", "A")
        app.turn(on: screen)
        #expect(Array(rules.changesSent.dropFirst(2)) == [.decide(Self.heldID, .resume), .decide(Self.heldID, .abort), .continueAll])
    }

    @Test func heldRequestsShowLiveUnderTheExchangesList() throws {
        let rules = FakeRules(try Self.apps())
        let (_, screen) = try Self.app(rules)
        ScreenSnapshot.check(screen, "exchanges-held")
    }

    @Test func aHeldRequestIsEditedInTheEditorAsTheReplayDocumentAndContinued() throws {
        let rules = FakeRules(try Self.apps())
        let editor = ExternalEditor { path in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            try? text.replacingOccurrences(of: "\"qty\":1", with: "\"qty\":5").write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let (app, screen) = try Self.app(rules, editor: editor)
        screen.press("5", "e")
        app.turn(on: screen)
        let sent = try #require(rules.changesSent.first)
        guard case .decide(let id, .edit(let edit)) = sent else {
            Issue.record("expected an edit, got \(sent)")
            return
        }
        #expect(id == Self.heldID && edit.method == "POST" && edit.url == "http://127.0.0.1:8080/orders")
        #expect(edit.body == Data("{\"sku\":\"A1\",\"qty\":5}".utf8))
        #expect(screen.lines.contains { $0.contains("continuing POST createOrder, edited") })
    }

    /// A wall clock the test moves: the user taking their time in the editor.
    final class WallClock: Sendable {
        let date = Mutex(RulesScreenTests.now)
        func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var now: Date { date.withLock { $0 } }
    }

    /// What the editor saw: the file's name and its directory's mode and path.
    final class EditorLog: Sendable {
        let seen = Mutex<[(name: String, mode: Int, directory: String)]>([])
    }

    static func watchingEditor(_ log: EditorLog, clock: WallClock, takes seconds: TimeInterval) -> ExternalEditor {
        ExternalEditor { path in
            let directory = (path as NSString).deletingLastPathComponent
            let mode = ((try? FileManager.default.attributesOfItem(atPath: directory))?[.posixPermissions] as? Int) ?? -1
            log.seen.withLock { $0.append(((path as NSString).lastPathComponent, mode, directory)) }
            // What vim leaves beside the file while it edits.
            _ = FileManager.default.createFile(atPath: directory + "/." + (path as NSString).lastPathComponent + ".swp", contents: Data("swap".utf8))
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            try? text.replacingOccurrences(of: "\"qty\":1", with: "\"qty\":5").write(toFile: path, atomically: true, encoding: .utf8)
            clock.advance(seconds)
            return nil
        }
    }

    /// Issue 43.4: an edit saved after the app's longest hold said "continuing …, edited" while the app had let the
    /// request go on unchanged. The file's name shows the deadline; a late edit is said and not sent.
    @Test func anEditSavedAfterTheHoldEndedIsReportedLateAndNotSent() throws {
        let rules = FakeRules(try Self.apps())
        let clock = WallClock()
        let log = EditorLog()
        let (app, screen) = try Self.app(rules, editor: Self.watchingEditor(log, clock: clock, takes: 61), wallClock: { clock.now })
        screen.press("5", "e")
        app.turn(on: screen)
        // Held 3.2 s before `now` (22:13:50 UTC) with a 60 s hold: it ends at 22:14:46.
        #expect(log.seen.withLock { $0.map(\.name) } == ["held-request-until-22.14.46.http"])
        #expect(rules.changesSent.isEmpty, "a late edit must not be sent as if applied")
        #expect(screen.lines.contains { $0.contains("edit: too late: the hold ended at 22:14:46") })
        #expect(!screen.lines.contains { $0.contains("continuing POST createOrder, edited") })
    }

    /// Issue 43.5: the editor's file lives in a private directory, gone afterwards with the editor's swap file.
    @Test func theEditorsFileIsInAPrivateDirectoryRemovedAfterwards() throws {
        let rules = FakeRules(try Self.apps())
        let clock = WallClock()
        let log = EditorLog()
        let (app, screen) = try Self.app(rules, editor: Self.watchingEditor(log, clock: clock, takes: 5), wallClock: { clock.now })
        screen.press("5", "e")
        app.turn(on: screen)
        let seen = try #require(log.seen.withLock { $0.first })
        #expect(seen.mode == 0o700)
        #expect((seen.directory as NSString).lastPathComponent.hasPrefix("loupe-edit-"))
        #expect(!FileManager.default.fileExists(atPath: seen.directory), "the directory and the swap file are removed")
        guard case .decide(_, .edit(let edit))? = rules.changesSent.first else {
            Issue.record("an edit in time is sent: \(rules.changesSent)")
            return
        }
        #expect(edit.body == Data("{\"sku\":\"A1\",\"qty\":5}".utf8))
        #expect(screen.lines.contains { $0.contains("continuing POST createOrder, edited") })
    }

    @Test func aRuleIsEditedAsTOMLAndSentBack() throws {
        let rules = FakeRules(try Self.apps())
        let editor = ExternalEditor { path in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            try? text.replacingOccurrences(of: "status = 503", with: "status = 500").write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let (app, screen) = try Self.app(rules, editor: editor)
        screen.press("5", "j", "e")
        app.turn(on: screen)
        #expect(rules.changesSent == [.put([try Rule(name: "getUser down", match: "~op getUser", action: .fault(.status(500)))])])
        let broken = ExternalEditor { path in
            try? "[[rule]]\nname = \"x\"\nfault = { status = 503 \n".write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let (other, otherScreen) = try Self.app(rules, editor: broken)
        otherScreen.press("5", "j", "e")
        other.turn(on: otherScreen)
        #expect(rules.changesSent.count == 1, "a file that does not read changes nothing")
        #expect(otherScreen.lines.contains { $0.contains("the rule is unchanged") })
    }

    @Test func aRuleIsMadeFromTheSelectedExchange() throws {
        let rules = FakeRules(try Self.apps())
        let (app, screen) = try Self.app(rules)
        screen.press("B")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("new-rule fault 503"))
        screen.press(.enter)
        app.turn(on: screen)
        let expected = try Rule(name: "fault 503 op2", match: "~op op2", action: .fault(.status(503)))
        #expect(rules.changesSent == [.put([expected])])
        screen.press(":")
        screen.type("new-rule mock")
        screen.press(.enter)
        app.turn(on: screen)
        guard case .put(let made)? = rules.changesSent.last, case .mock(let mock) = made.first?.action else {
            Issue.record("expected a mock rule")
            return
        }
        #expect(made.first?.name == "mock op2" && mock.status == 200 && mock.recordedFrom == 2)
    }

    @Test func withoutALinkScreenFiveSaysHowToGetOne() throws {
        let (app, screen) = try Self.app(nil)
        screen.press("5")
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("rules act on linked apps: run loupe tui --listen") })
        screen.press("t")
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("toggle-rule: rules act on linked apps") })
    }
}
