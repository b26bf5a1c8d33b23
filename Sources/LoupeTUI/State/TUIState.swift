import Foundation
import LoupeApproval
import LoupeProtobuf
import LoupeQuery
import LoupeTrace

/// Everything the TUI shows: the screen stack, the shared session, the open prompt and the status line.
///
/// Change it only through ``update(_:environment:)``; draw it with ``TUIRenderer``. Update reads the store
/// (keyset pages, counts) but never writes or waits: those are ``TUIEffect``s for the app. Tests build a
/// state over an in-memory or SQLite store, send actions and compare whole buffers.
package struct TUIState: Sendable {
    /// How the store is named in the title bar (usually its path).
    package var storeName: String
    /// The linked apps, for the title bar (`loupe tui --listen`); empty otherwise.
    package var sources: [SourceStatus] = []
    /// The listener's link and refusals (`loupe tui --listen`); nil otherwise.
    package var listener: ListenerStatus?
    /// Where the recordings are served and its start line (`loupe tui --serve`); nil otherwise.
    package var serving: ServingStatus?
    /// The screen size everything is laid out for.
    package private(set) var size: Size
    /// Whether replay is available (a replayer was given).
    package var canReplay: Bool
    /// The calendar (time zone) the clock column uses.
    package var calendar: Calendar
    /// The key table.
    package var keymap: Keymap
    /// Filter, order, marks, follow: what every screen shares.
    package var session = TUISession()
    /// The screens, bottom first; the exchanges list is always at the bottom.
    package private(set) var screens: [any Screen] = [ExchangesScreen()]
    /// Board screens left with `1`, `3` or `4`, by key context (see ``park()``).
    var parked: [KeyContext: any Screen] = [:]
    /// The prompt taking the keyboard, if one is open.
    package var prompt: Prompt?
    /// The message on the status line.
    package var status: StatusMessage?
    /// Why the store could not be read, until a read succeeds (shown when there is no newer message).
    package var storeProblem: String?
    /// The replay under way, or the confirmation it waits for.
    package var replay: ReplayPhase = .idle
    /// `POST api.example.com/orders`: what the replay under way sends, for its messages.
    package var replayTarget = ""
    /// Whether the replay under way is a repeat (`R`), which Esc stops (issue 43.3).
    package var isRepeating = false
    /// The OpenAPI contract's checks (`loupe tui --openapi`), or nil.
    package var contract: ContractChecks?
    /// The question `a` opened on screen 6, if one is open. What would be approved lives here and nowhere else,
    /// so closing the question, however it closes, drops it: no answer can approve another request.
    package var agentQuestion: AgentQuestion?

    /// A fresh state: nothing read yet, following, the exchanges list.
    package init(storeName: String, size: Size, canReplay: Bool, timeZone: TimeZone = .current,
                 keymap: Keymap = .standard) {
        self.storeName = storeName
        self.size = size
        self.canReplay = canReplay
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
        self.keymap = keymap
    }

    /// The screen on top.
    package var top: any Screen { screens[screens.count - 1] }

    /// The exchanges list at the bottom of the stack.
    package var exchanges: ExchangesScreen { screens[0] as? ExchangesScreen ?? ExchangesScreen() }

    /// Which bindings apply now.
    package var keyContext: KeyContext { prompt == nil ? top.keyContext : .prompt }

    /// The layout for ``size``.
    package var layout: TUILayout { TUILayout(size: size) }

    /// The search to highlight: the prompt's text while searching, else the last search.
    package var highlightedSearch: String? {
        if let prompt, prompt.kind == .search { return prompt.input.text.isEmpty ? nil : prompt.input.text }
        return session.search
    }

    // MARK: The stack

    /// Gives a screen the store, session and area, then takes back what it changed and asked for.
    mutating func withTop<T>(_ environment: TUIEnvironment,
                             _ body: (inout any Screen, inout ScreenContext) -> T) -> T {
        var context = makeContext(environment)
        var screen = screens.removeLast()
        let result = body(&screen, &context)
        screens.append(screen)
        absorb(&context, environment)
        return result
    }

    /// Runs `body` on every screen, bottom first (a poll, a resize, a new filter).
    /// Whether a screen put work off until after the frame.
    package var hasDeferredWork: Bool { screens.contains { $0.hasDeferredWork } }

    mutating func forEachScreen(_ environment: TUIEnvironment,
                                _ body: (inout any Screen, inout ScreenContext) -> Void) {
        for index in screens.indices {
            var context = makeContext(environment)
            body(&screens[index], &context)
            session = context.session
            if let status = context.status { self.status = status }
            pendingEffects += context.effects
            if let failure = context.readFailure { readFailures.append(failure) }
        }
    }

    /// Which hit of how many the search being typed is on (`/slow: 3/7`), for the status line once it is applied.
    var searchHit: StatusMessage?

    /// The wall clock's time at the last update (what the board screens count down from when drawing).
    package var now = Date(timeIntervalSince1970: 0)

    /// Store reads that failed while the current action ran.
    var readFailures: [String] = []

    /// How many screens were on the stack after the last action: a screen under them missed the polls since.
    var polledDepth = 1

    /// Effects gathered while an action ran.
    var pendingEffects: [TUIEffect] = []

    func makeContext(_ environment: TUIEnvironment) -> ScreenContext {
        var context = ScreenContext(store: environment.store, session: session, area: layout.content, calendar: calendar,
                                    keymap: keymap)
        context.now = environment.wallClock()
        context.rules = environment.rules
        context.openStreams = environment.openStreams?() ?? []
        context.contract = contract
        context.messageTypes = environment.messageTypes
        context.agents = environment.agents
        return context
    }

    /// Applies what a screen left in its context: session changes, a message, a push or pop, effects.
    private mutating func absorb(_ context: inout ScreenContext, _ environment: TUIEnvironment) {
        let queryChanged = context.session.query != session.query
        let marksChanged = context.session.marks != session.marks
        session = context.session
        if let status = context.status { self.status = status }
        pendingEffects += context.effects
        if let failure = context.readFailure { readFailures.append(failure) }
        if context.popRequested { pop() }
        if context.popToRootRequested { popToRoot() }
        if let pushed = context.pushed { screens.append(pushed) }
        if queryChanged {
            forEachScreen(environment) { $0.refresh(.queryChanged, context: &$1) }
        } else if marksChanged {
            forEachScreen(environment) { $0.refresh(.marksChanged, context: &$1) }
        }
    }

    /// Takes the top screen off (never the exchanges list).
    mutating func pop() {
        guard screens.count > 1 else { return }
        park()
        screens.removeLast()
    }

    /// Back to the exchanges list.
    mutating func popToRoot() {
        park()
        screens.removeLast(screens.count - 1)
    }

    /// Puts `screen` on top.
    mutating func push(_ screen: any Screen) {
        screens.append(screen)
    }

    /// A poll reads arrivals for the top screen and, when that is not a list, for the nearest list under it:
    /// the title bar counts that list, so its count stays live on every screen (a board, a detail, the help).
    mutating func poll(_ environment: TUIEnvironment) {
        withTop(environment) { $0.refresh(.storeChanged, context: &$1) }
        guard !top.listsExchanges, let index = screens.lastIndex(where: \.listsExchanges) else { return }
        var context = makeContext(environment)
        screens[index].refresh(.storeChanged, context: &context)
        session.follow = context.session.follow
        pendingEffects += context.effects
        if let failure = context.readFailure { readFailures.append(failure) }
    }

    mutating func resize(to newSize: Size, _ environment: TUIEnvironment) {
        size = newSize
        forEachScreen(environment) { $0.refresh(.resized, context: &$1) }
    }
}

/// What update reads: the store, and the prompts' history.
package struct TUIEnvironment {
    package var store: any TraceStore
    package var history: any PromptHistoryStore
    /// The wall clock: what "now" is for windows and countdowns (injected by tests).
    package var wallClock: @Sendable () -> Date = { Date() }
    /// The linked apps' rules, when the TUI listens for apps (`--listen`).
    package var rules: (any RulesControl)?
    /// The streams open now in this process's recorder (`loupe demo`): live rows under the exchanges list.
    package var openStreams: (@Sendable () -> [OpenStream])?
    /// Names gRPC messages' fields (`--descriptor-set`), so the Messages tab shows them as JSON.
    package var messageTypes: ProtobufDescriptorSet?
    /// Agents' requests waiting beside the store (`loupe mcp --allow-actions`), for screen 6; nil without a store file.
    package var agents: AgentQueue?

    package init(store: any TraceStore, history: any PromptHistoryStore) {
        self.store = store
        self.history = history
    }
}

extension TUIState {
    /// The board screens (circuits, metrics) are kept when left and brought back on their key, so they continue
    /// from the last exchange they read instead of reading the store again.
    mutating func park() {
        for screen in screens.dropFirst() where screen.keyContext == .circuits || screen.keyContext == .metrics {
            parked[screen.keyContext] = screen
        }
    }

    /// Shows the timeline on the exchanges list, over the same filter and order, read afresh (it holds only a screen
    /// of rows, so there is nothing to keep).
    mutating func showTimeline(_ environment: TUIEnvironment) {
        guard top.keyContext != .timeline else { return }
        park()
        popToRoot()
        push(TimelineScreen())
        withTop(environment) { $0.refresh(.resized, context: &$1) }
    }

    /// Shows the board screen for `context` on the exchanges list, catching it up with the store.
    /// Shows the rules screen (`5`) over the exchanges list, read afresh (the apps report their rules; nothing to keep).
    mutating func showRules(_ environment: TUIEnvironment) {
        guard top.keyContext != .rules else { return }
        park()
        popToRoot()
        var context = makeContext(environment)
        let screen = RulesScreen(context: &context)
        push(screen)
    }

    mutating func showBoard(_ context: KeyContext, _ environment: TUIEnvironment) {
        guard top.keyContext != context else { return }
        park()
        popToRoot()
        // The exchanges list under the board is what the title bar counts from now on: brought up to date first.
        withTop(environment) { $0.refresh(.storeChanged, context: &$1) }
        let screen: any Screen = parked.removeValue(forKey: context)
            ?? (context == .circuits ? CircuitsScreen() : MetricsScreen())
        push(screen)
        withTop(environment) { $0.refresh(.storeChanged, context: &$1) }
    }
}
