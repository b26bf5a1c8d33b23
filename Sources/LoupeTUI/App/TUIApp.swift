import Foundation
import LoupeApproval
import LoupeProtobuf
import LoupeQuery
import LoupeTrace

/// Runs the TUI: polls a ``TraceStore``, reads keys and clicks from a ``Terminal``, updates the
/// `TUIState`, carries out effects and draws.
///
/// ``run(on:)`` is the loop for a real terminal. Tests drive the same steps without sleeping: ``refresh()``
/// polls the store, ``handle(_:)`` presses a key, ``turn(on:waitingUpTo:)`` reads queued keys and draws, and
/// ``settle()`` waits for replays and exports started in the background.
///
/// Not `Sendable`: one task owns the app while it runs. Replays run in child tasks, exports on threads of their own
/// (``BackgroundExports``); both hand their results back through a locked inbox, never by touching the app.
public final class TUIApp {
    /// The current model.
    package private(set) var state: TUIState
    /// Whether the user quit.
    public internal(set) var hasQuit = false

    let environment: TUIEnvironment
    let replayer: (any ExchangeReplaying)?
    private let pollInterval: Duration
    /// How often an idle TUI redraws anyway, for what the passing time changes on screen.
    static let clockTick = Duration.seconds(1)
    /// Set by every action; a turn that applied none draws nothing (rendering to compare costs an idle CPU).
    private var needsDraw = true
    /// Frames rendered (whether or not they differed from the last one drawn), for tests of the idle loop.
    package private(set) var renderCount = 0
    /// The store's marker at the last look, to skip reading an unchanged store.
    private var lastMarker: StoreChangeMarker?
    private var lastRulesVersion: Int?
    private var lastContractVersion: Int?
    let inbox = ActionInbox()
    var replays: [UUID: Task<Void, Never>] = [:]
    /// The running repeats' stop switches, by the same token as their task in ``replays``.
    var repeatStops: [UUID: RepeatStop] = [:]
    let rankCounter = RankCounter()
    let exports = BackgroundExports()
    /// Most keys discarded at once: a bound, so endless input cannot keep the loop from drawing.
    private static let typeaheadLimit = 1 << 20
    var lastDrawn: Buffer?
    private var lastClick: (x: Int, y: Int, at: ContinuousClock.Instant)?
    let now: @Sendable () -> ContinuousClock.Instant
    let editor: ExternalEditor
    /// Requests waiting to be opened in the editor (that needs the screen, so it happens in ``turn(on:waitingUpTo:)``).
    var pendingEdits: [TraceExchange] = []
    /// Edited text the user saved but that would not parse, by exchange, so `e` reopens it rather than losing it.
    var keptEdits: [UUID: String] = [:]
    /// Rules and held requests to open in the editor at the end of this turn (screen 5).
    var pendingRuleEdits: [TUIEffect] = []
    /// Where the last clipboard copy went, for tests.
    package internal(set) var copied: [String] = []

    /// Most keys handled before a frame is drawn: a paste is typed in a few frames, and endless input still draws.
    static let keysPerTurn = 512
    /// Two presses on one row within this long are a double click.
    static let doubleClickInterval = Duration.milliseconds(400)

    /// A TUI over `store`, titled `storeName` (usually its path); `replayer` enables `r`.
    ///
    /// - Parameters:
    ///   - pollInterval: How often ``run(on:)`` asks the store for changes.
    ///   - filter: The filter to start with (`f` changes it).
    ///   - timeZone: The clock column's time zone.
    ///   - keymap: The keys (``Keymap/standard`` with a user's keys.toml applied).
    ///   - history: Where prompts keep their history.
    public convenience init(store: any TraceStore, storeName: String, replayer: (any ExchangeReplaying)?,
                            pollInterval: Duration = .milliseconds(200), filter: TraceFilter? = nil,
                            timeZone: TimeZone = .current) {
        self.init(store: store, storeName: storeName, replayer: replayer, pollInterval: pollInterval, filter: filter,
                  timeZone: timeZone, keymap: .standard, history: InMemoryPromptHistory())
    }

    package init(store: any TraceStore, storeName: String, replayer: (any ExchangeReplaying)?,
                 pollInterval: Duration = .milliseconds(200), filter: TraceFilter? = nil,
                 timeZone: TimeZone = .current, keymap: Keymap, history: any PromptHistoryStore,
                 size: Size = Size(width: 80, height: 24),
                 now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
                 editor: ExternalEditor = .system(), wallClock: @escaping @Sendable () -> Date = { Date() },
                 rules: (any RulesControl)? = nil, openStreams: (@Sendable () -> [OpenStream])? = nil,
                 contract: ContractChecks? = nil, messageTypes: ProtobufDescriptorSet? = nil, agents: AgentQueue? = nil) {
        self.editor = editor
        var environment = TUIEnvironment(store: store, history: history)
        environment.messageTypes = messageTypes
        environment.wallClock = wallClock
        environment.rules = rules
        environment.agents = agents
        // The streams this process's recorder has open (`loupe demo`): live rows under the exchanges list, their
        // duration and message counts redrawn on every poll while any is open.
        environment.openStreams = openStreams
        self.environment = environment
        self.replayer = replayer
        self.pollInterval = pollInterval
        self.now = now
        self.state = TUIState(storeName: storeName, size: size, canReplay: replayer != nil,
                                    timeZone: timeZone, keymap: keymap)
        state.contract = contract
        state.setFilter(filter)
        state.session.filterText = filter?.description
    }

    /// Runs until the user quits (returns) or the task is cancelled (throws `CancellationError`).
    ///
    /// The caller owns the terminal: shut the terminal down in a `defer` so it is restored on every exit.
    public func run(on terminal: any Terminal) async throws {
        defer {
            // However the loop ends; each export removes its partial file before its thread ends.
            exports.cancelAll()
            exports.waitForAll()
        }
        do {
            try await loop(on: terminal)
        } catch {
            await finishReplays(on: terminal)
            throw error
        }
        // Replays are not cancelled: a request that went out is recorded with its answer (issue 43.3).
        await finishReplays(on: terminal)
    }

    private func loop(on terminal: any Terminal) async throws {
        let clock = ContinuousClock()
        if state.size != terminal.size { apply(.resized(terminal.size)) }
        var nextPoll = clock.now
        var nextTick = clock.now
        if let wakeup { terminal.watch(wakeup.readDescriptor) }
        while true {
            try Task.checkCancellation()
            if let wakeup, wakeup.drain() {
                // Stored in this process just now: read it without waiting for the poll.
                refresh()
                nextPoll = clock.now.advanced(by: pollInterval)
            }
            if clock.now >= nextPoll {
                // An unchanged store is not read further, and nothing is redrawn, except once a second so that
                // what time changes (ages, a breaker's next probe, the metrics windows) moves on.
                if storeChanged() || clock.now >= nextTick {
                    refresh()
                    nextTick = clock.now.advanced(by: Self.clockTick)
                }
                nextPoll = clock.now.advanced(by: pollInterval)
            }
            // Work put off for a frame (a board catching up) goes on at once, between keys; a rank counted in the
            // background is looked for soon.
            let longest: Duration = rankCounter.isBusy ? .milliseconds(5) : .milliseconds(100)
            let wait = state.hasDeferredWork ? .zero : min(max(.zero, nextPoll - clock.now), longest)
            guard turn(on: terminal, waitingUpTo: wait) else { return }
            await Task.yield()
        }
    }

    /// One turn of the loop without polling: applies finished work, reads a key (waiting up to `timeout`) and
    /// any keys already queued behind it, and draws if the picture changed.
    /// - Returns: `false` once the user has quit.
    @discardableResult
    package func turn(on terminal: any Terminal, waitingUpTo timeout: Duration = .zero) -> Bool {
        applyInbox()
        if state.size != terminal.size { apply(.resized(terminal.size)) }
        // What a poll or a finished replay changed goes out before waiting for a key, not after the wait (the
        // first frame waited out a whole wait that way).
        if needsDraw, timeout > .zero { draw(on: terminal) }
        var key = terminal.nextKey(timeout: timeout)
        var handled = 0
        var replayKeyPressed = false
        while let pressed = key, !hasQuit {
            let phase = state.replay
            let asked = state.agentQuestion != nil
            switch pressed {
            case .resize: apply(.resized(terminal.size))
            case .mouse(let event): click(event)
            default: handle(pressed)
            }
            handled += 1
            if state.replay != phase && state.replay != .idle || !asked && state.agentQuestion != nil {
                // This key started a replay or opened its (or an agent request's) question: keys typed before the user could see that
                // (the rest of a paste) must not answer the prompt or fire more replays.
                replayKeyPressed = true
                discardTypeahead(on: terminal)
                break
            }
            key = handled < Self.keysPerTurn ? terminal.nextKey(timeout: .zero) : nil
        }
        guard !hasQuit else { return false }
        applyInbox()
        flushCopies(to: terminal)
        runEdits(on: terminal)
        runRuleEdits(on: terminal)
        if needsDraw { draw(on: terminal) }
        if state.hasDeferredWork {
            // The rows are on screen; now what the screens put off for them (a board reading a chunk), then its frame.
            apply(.settle)
            draw(on: terminal)
        }
        if replayKeyPressed { discardTypeahead(on: terminal) }
        return true
    }

    /// Throws away every key already waiting (curses' `flushinp`, done through the ``Terminal`` protocol).
    private func discardTypeahead(on terminal: any Terminal) {
        var discarded = 0
        while discarded < Self.typeaheadLimit, let key = terminal.nextKey(timeout: .zero) {
            if key == .resize { apply(.resized(terminal.size)) }
            discarded += 1
        }
    }

    /// Whether the store changed since the last look (a failed look counts as a change, so the poll reports it).
    private func storeChanged() -> Bool {
        // An app reporting its rules or held requests counts as a change: screen 5 and held rows redraw at once.
        if let version = environment.rules?.version, version != lastRulesVersion {
            lastRulesVersion = version
            return true
        }
        // Exchanges checked against the contract since: their drift marks, and a `~drift` filter's rows.
        if let version = state.contract?.version, version != lastContractVersion {
            lastContractVersion = version
            return true
        }
        // An open stream's duration and counts move without the store changing.
        if environment.openStreams?().isEmpty == false { return true }
        let marker = try? environment.store.changeMarker()
        defer { lastMarker = marker }
        return marker == nil || marker != lastMarker
    }

    /// Signalled when the store changed in this process (`loupe tui --listen`): the loop refreshes at once, and a
    /// terminal that can (``Terminal/watch(_:)``) wakes from its key wait for it.
    package var wakeup: StoreWakeup?

    /// The linked apps' states for the title bar, read on every poll (`loupe tui --listen` sets it).
    package var sourceStatus: (@Sendable () -> [SourceStatus])?

    /// The listener's link and refusals, read on every poll (`loupe tui --listen` sets it): the empty exchanges list
    /// and screen 5 show the link, and a new refusal is said on the status line.
    package var listenerStatus: (@Sendable () -> ListenerStatus)?

    /// Where the recordings are served (`loupe tui --serve` sets it): the title bar names the address, and the
    /// server's start line is the first status line.
    package var serving: ServingStatus? {
        get { state.serving }
        set {
            state.serving = newValue
            if let newValue { state.status = StatusMessage(newValue.summary) }
            needsDraw = true
        }
    }

    /// Starts every sequence of the recordings served over (`loupe tui --serve` sets it; the `reset-scenarios` key).
    package var resetScenarios: (@Sendable () -> Void)?

    /// Looks at the store for changes (by this or another process), and at the linked apps.
    package func refresh() {
        if let sourceStatus { state.sources = sourceStatus() }
        if let listenerStatus {
            let now = listenerStatus()
            if now.refused > (state.listener?.refused ?? 0), let line = now.lastRefusal {
                state.status = .error("link refused: " + line)
            }
            state.listener = now
        }
        apply(.poll)
        // What arrived is checked off the loop's thread; the loop sees the checks' version move.
        state.contract?.startCatchingUp(store: environment.store)
    }

    /// Handles one key press as the keymap says.
    package func handle(_ key: Key) {
        apply(.key(key))
    }

    /// A click or wheel turn; a second press on the same row soon after the first is a double click.
    package func click(_ event: MouseEvent) {
        var double = false
        if event.kind == .press {
            let time = now()
            if let last = lastClick, last.y == event.y, time - last.at <= Self.doubleClickInterval {
                double = true
                lastClick = nil
            } else {
                lastClick = (event.x, event.y, time)
            }
        }
        apply(.mouse(event, double: double))
    }

    /// Sends `action` through the state's update and carries out its effects.
    package func apply(_ action: TUIAction) {
        needsDraw = true
        for effect in state.update(action, environment: environment) {
            perform(effect)
        }
        rankCounter.keepOnly(Set(state.screens.compactMap(\.rankRequest)))
    }

    /// Waits for every replay, export and rank count started so far and applies its result.
    package func settle() async {
        await state.contract?.idle()
        while !replays.isEmpty || rankCounter.isBusy || exports.isBusy {
            for task in replays.values { await task.value }
            await rankCounter.idle()
            await exports.idle()
            applyInbox()
        }
        applyInbox()
    }

    /// What the screen shows for the current state (the open prompt checked first, once for all the keys typed
    /// since the last frame).
    package func render() -> Buffer {
        if state.prompt?.needsCheck == true { apply(.frame) }
        return TUIRenderer.render(state)
    }

    /// Draws the current state on `terminal` when it differs from what was drawn last.
    package func draw(on terminal: any Terminal) {
        let buffer = render()
        needsDraw = false
        renderCount += 1
        guard buffer != lastDrawn else { return }
        terminal.draw(buffer)
        lastDrawn = buffer
    }

    var pendingCopies: [String] = []

    func applyInbox() {
        for (token, action) in inbox.drain() {
            replays[token] = nil
            repeatStops[token] = nil
            apply(action)
        }
    }

}
