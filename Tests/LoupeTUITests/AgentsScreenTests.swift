import Foundation
import LoupeApproval
import LoupeTrace
import LoupeTUI
import Testing

/// Screen 6: the requests `loupe mcp --allow-actions` files beside the store, answered from the inspector. Real
/// request files in a temporary folder (the ones `loupe approve` answers); whole screens compared at 80×24.
@Suite struct AgentsScreenTests {
    static let now = Fixture.epoch.addingTimeInterval(30)

    /// A queue beside a store path of its own, with a replay and a rule waiting (the replay filed first).
    static func queue() throws -> (AgentQueue, replay: String, rule: String) {
        let folder = NSTemporaryDirectory() + "loupe-agents-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let queue = AgentQueue(storePath: folder + "/traces.sqlite")
        let replay = try queue.submit(AgentRequest(origin: #"agent "claude-code" (loupe mcp)"#, tool: "replay_exchange",
                                                   summary: "replay #1: POST https://api.example.com/orders (1 request)", detail: []),
                                      now: Fixture.epoch.addingTimeInterval(18))
        let rule = try queue.submit(AgentRequest(origin: #"agent "cursor" (loupe mcp)"#, tool: "add_rule",
                                                 summary: "add to /tmp/rules.toml the rule orders down",
                                                 detail: ["[[rule]]", #"name = "orders down""#, #"match = "~op createOrder""#,
                                                          "fault = { status = 503 }"]),
                                    now: Fixture.epoch.addingTimeInterval(25))
        return (queue, replay, rule)
    }

    static func app(_ queue: AgentQueue?) throws -> (TUIApp, InMemoryTerminal) {
        let store = try Fixture.store([Fixture.exchange(1, url: "https://api.example.com/orders")])
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, timeZone: .gmt,
                         keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: 80, height: 24),
                         now: { Fixture.clock.now }, wallClock: { now }, agents: queue)
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    @Test("6 lists who asks, the tool and what it would send; the selected rule's text in full")
    func screenSixListsTheRequests() throws {
        let (queue, _, _) = try Self.queue()
        let (app, screen) = try Self.app(queue)
        screen.press("6")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "agents-80x24")
        screen.press("j")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "agents-rule-selected")
    }

    @Test("a asks first, naming what will be sent; only y approves, and the request leaves the screen")
    func approvingAsksFirst() throws {
        let (queue, replay, rule) = try Self.queue()
        let (app, screen) = try Self.app(queue)
        screen.press("6")
        app.turn(on: screen)
        screen.press("a")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "agents-question")
        #expect(queue.decision(replay) == nil)
        // Any other key closes the question: nothing is decided, the request still waits.
        screen.press("n")
        app.turn(on: screen)
        #expect(queue.decision(replay) == nil)
        #expect(app.state.agentQuestion == nil)
        #expect(screen.lines.contains { $0.contains("not approved; the request still waits (r refuses it)") })
        // A question's state dies with it: y alone, with no question open, approves nothing.
        screen.press("y")
        app.turn(on: screen)
        #expect(queue.decision(replay) == nil)
        screen.press("a")
        app.turn(on: screen)
        screen.press("y")
        app.turn(on: screen)
        #expect(queue.decision(replay) == true)
        #expect(queue.decision(rule) == nil)
        #expect(screen.lines.contains { $0.contains(#"approved: agent "claude-code" (loupe mcp): replay #1"#) })
        #expect(!screen.lines.contains { $0.contains("replay_exchange") })
        #expect(screen.lines.contains { $0.contains("add_rule") })
    }

    @Test("r refuses at once; keys typed after a (a paste) never answer its question")
    func refusingAndTypeahead() throws {
        let (queue, replay, rule) = try Self.queue()
        let (app, screen) = try Self.app(queue)
        screen.press("6")
        app.turn(on: screen)
        // `a` then `y` queued before the question could be seen: the y is thrown away with the rest.
        screen.press("a", "y")
        app.turn(on: screen)
        #expect(queue.decision(replay) == nil)
        #expect(app.state.agentQuestion != nil)
        screen.press(.escape)
        app.turn(on: screen)
        screen.press("j", "r")
        app.turn(on: screen)
        #expect(queue.decision(rule) == false)
        #expect(queue.decision(replay) == nil)
        #expect(screen.lines.contains { $0.contains(#"refused: agent "cursor" (loupe mcp): add to /tmp/rules.toml"#) })
    }

    @Test("a request withdrawn while its question is open gets no decision, and the screen says so")
    func withdrawnWhileAsking() throws {
        let (queue, replay, _) = try Self.queue()
        let (app, screen) = try Self.app(queue)
        screen.press("6")
        app.turn(on: screen)
        screen.press("a")
        app.turn(on: screen)
        queue.withdraw(replay)
        screen.press("y")
        app.turn(on: screen)
        #expect(queue.decision(replay) == nil)
        #expect(screen.lines.contains { $0.contains("withdrawn before the answer") })
    }

    @Test("without a store file, screen 6 says where requests come from; with nothing waiting, how an agent asks")
    func emptyAndUnavailable() throws {
        let (app, screen) = try Self.app(nil)
        screen.press("6")
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("agent requests are kept beside a store file") })
        screen.press("a")
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("approve-action: no agent request is waiting") })
        let folder = NSTemporaryDirectory() + "loupe-agents-\(UUID().uuidString)"
        let (empty, emptyScreen) = try Self.app(AgentQueue(storePath: folder + "/traces.sqlite"))
        emptyScreen.press("6")
        empty.turn(on: emptyScreen)
        #expect(emptyScreen.lines.contains { $0.contains("No agent requests waiting") })
    }
}
