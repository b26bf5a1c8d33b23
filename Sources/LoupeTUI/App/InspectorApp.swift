import Foundation
import LoupeTrace

/// Runs the inspector: polls a ``TraceStore``, reads keys and clicks from a ``Screen``, updates the
/// `InspectorState`, carries out effects and draws.
///
/// ``run(on:)`` is the loop for a real terminal. Tests drive the same steps without sleeping: ``refresh()``
/// polls the store, ``handle(_:)`` presses a key, ``turn(on:waitingUpTo:)`` reads queued keys and draws, and
/// ``settle()`` waits for replays and exports started in the background.
///
/// Not `Sendable`: one task owns the app while it runs. Replays run in child tasks, exports on threads of their own
/// (``BackgroundExports``); both hand their results back through a locked inbox, never by touching the app.
public final class InspectorApp {
    /// The current model.
    package private(set) var state: InspectorState
    /// Whether the user quit.
    public private(set) var hasQuit = false

    private let environment: InspectorEnvironment
    private let replayer: (any ExchangeReplaying)?
    private let pollInterval: Duration
    /// How often an idle inspector redraws anyway, for what the passing time changes on screen.
    static let clockTick = Duration.seconds(1)
    /// Set by every action; a turn that applied none draws nothing (rendering to compare costs an idle CPU).
    private var needsDraw = true
    /// Frames rendered (whether or not they differed from the last one drawn), for tests of the idle loop.
    package private(set) var renderCount = 0
    /// The store's marker at the last look, to skip reading an unchanged store.
    private var lastMarker: StoreChangeMarker?
    private let inbox = ActionInbox()
    private var replays: [UUID: Task<Void, Never>] = [:]
    private let rankCounter = RankCounter()
    private let exports = BackgroundExports()
    /// Most keys discarded at once: a bound, so endless input cannot keep the loop from drawing.
    private static let typeaheadLimit = 1 << 20
    private var lastDrawn: Buffer?
    private var lastClick: (x: Int, y: Int, at: ContinuousClock.Instant)?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let editor: ExternalEditor
    /// Requests waiting to be opened in the editor (that needs the screen, so it happens in ``turn(on:waitingUpTo:)``).
    private var pendingEdits: [TraceExchange] = []
    /// Edited text the user saved but that would not parse, by exchange, so `e` reopens it rather than losing it.
    private var keptEdits: [UUID: String] = [:]
    /// Where the last clipboard copy went, for tests.
    package private(set) var copied: [String] = []

    /// Most keys handled before a frame is drawn: a paste is typed in a few frames, and endless input still draws.
    static let keysPerTurn = 512
    /// Two presses on one row within this long are a double click.
    static let doubleClickInterval = Duration.milliseconds(400)

    /// An inspector over `store`, titled `storeName` (usually its path); `replayer` enables `r`.
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
                 editor: ExternalEditor = .system(), wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.editor = editor
        var environment = InspectorEnvironment(store: store, history: history)
        environment.wallClock = wallClock
        self.environment = environment
        self.replayer = replayer
        self.pollInterval = pollInterval
        self.now = now
        self.state = InspectorState(storeName: storeName, size: size, canReplay: replayer != nil,
                                    timeZone: timeZone, keymap: keymap)
        state.session.filter = filter
        state.session.filterText = filter?.description
    }

    /// Runs until the user quits (returns) or the task is cancelled (throws `CancellationError`).
    ///
    /// The caller owns the terminal: shut the screen down in a `defer` so it is restored on every exit.
    public func run(on screen: any Screen) async throws {
        defer {
            cancelReplays()
            // However the loop ends; each export removes its partial file before its thread ends.
            exports.cancelAll()
            exports.waitForAll()
        }
        let clock = ContinuousClock()
        if state.size != screen.size { apply(.resized(screen.size)) }
        var nextPoll = clock.now
        var nextTick = clock.now
        while true {
            try Task.checkCancellation()
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
            guard turn(on: screen, waitingUpTo: wait) else { return }
            await Task.yield()
        }
    }

    /// One turn of the loop without polling: applies finished work, reads a key (waiting up to `timeout`) and
    /// any keys already queued behind it, and draws if the picture changed.
    /// - Returns: `false` once the user has quit.
    @discardableResult
    package func turn(on screen: any Screen, waitingUpTo timeout: Duration = .zero) -> Bool {
        applyInbox()
        if state.size != screen.size { apply(.resized(screen.size)) }
        // What a poll or a finished replay changed goes out before waiting for a key, not after the wait (the
        // first frame waited out a whole wait that way).
        if needsDraw, timeout > .zero { draw(on: screen) }
        var key = screen.nextKey(timeout: timeout)
        var handled = 0
        var replayKeyPressed = false
        while let pressed = key, !hasQuit {
            let phase = state.replay
            switch pressed {
            case .resize: apply(.resized(screen.size))
            case .mouse(let event): click(event)
            default: handle(pressed)
            }
            handled += 1
            if state.replay != phase, state.replay != .idle {
                // This key started a replay or opened its confirmation: keys typed before the user could see that
                // (the rest of a paste) must not answer the prompt or fire more replays.
                replayKeyPressed = true
                discardTypeahead(on: screen)
                break
            }
            key = handled < Self.keysPerTurn ? screen.nextKey(timeout: .zero) : nil
        }
        guard !hasQuit else { return false }
        applyInbox()
        flushCopies(to: screen)
        runEdits(on: screen)
        if needsDraw { draw(on: screen) }
        if state.hasDeferredWork {
            // The rows are on screen; now what the screens put off for them (a board reading a chunk), then its frame.
            apply(.settle)
            draw(on: screen)
        }
        if replayKeyPressed { discardTypeahead(on: screen) }
        return true
    }

    /// Throws away every key already waiting (curses' `flushinp`, done through the ``Screen`` protocol).
    private func discardTypeahead(on screen: any Screen) {
        var discarded = 0
        while discarded < Self.typeaheadLimit, let key = screen.nextKey(timeout: .zero) {
            if key == .resize { apply(.resized(screen.size)) }
            discarded += 1
        }
    }

    /// Whether the store changed since the last look (a failed look counts as a change, so the poll reports it).
    private func storeChanged() -> Bool {
        let marker = try? environment.store.changeMarker()
        defer { lastMarker = marker }
        return marker == nil || marker != lastMarker
    }

    /// Looks at the store for changes (by this or another process).
    package func refresh() {
        apply(.poll)
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
    package func apply(_ action: InspectorAction) {
        needsDraw = true
        for effect in state.update(action, environment: environment) {
            perform(effect)
        }
        rankCounter.keepOnly(Set(state.screens.compactMap(\.rankRequest)))
    }

    /// Waits for every replay, export and rank count started so far and applies its result.
    package func settle() async {
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
        return InspectorRenderer.render(state)
    }

    /// Draws the current state on `screen` when it differs from what was drawn last.
    package func draw(on screen: any Screen) {
        let buffer = render()
        needsDraw = false
        renderCount += 1
        guard buffer != lastDrawn else { return }
        screen.draw(buffer)
        lastDrawn = buffer
    }

    private var pendingCopies: [String] = []

    private func flushCopies(to screen: any Screen) {
        for text in pendingCopies {
            let supported = screen.copyToClipboard(text)
            copied.append(text)
            apply(.finished(supported ? StatusMessage("copied curl to the clipboard (OSC 52)")
                : .error("this terminal does not take OSC 52 clipboard writes: use x to export curl to a file"), replay: false))
        }
        pendingCopies = []
    }

    private func perform(_ effect: InspectorEffect) {
        switch effect {
        case .quit:
            hasQuit = true
            cancelReplays()
            exports.cancelAll()
        case .replay(let id):
            guard let exchange = loadForReplay(id) else { return }
            askOrSend(PendingReplay(exchange: exchange, reasons: reasonsToAsk(exchange)))
        case .sendConfirmed(let pending):
            send(pending)
        case .repeatReplay(let id, let plan):
            guard let exchange = loadForReplay(id) else { return }
            askOrSend(PendingReplay(exchange: exchange, plan: plan, reasons: reasonsToAsk(exchange)))
        case .edit(let id):
            guard let exchange = loadForReplay(id) else { return }
            pendingEdits.append(exchange)
        case .export(let request):
            exports.start(request, store: environment.store, inbox: inbox)
        case .cancelExports:
            let running = exports.cancelAll()
            apply(.finished(running == 0 ? .error("export: none is running") : StatusMessage(
                "cancelling \(running == 1 ? "the export" : "\(running) exports")…"), replay: false))
        case .copy(let text):
            pendingCopies.append(text)
        case .copyCurl(let id):
            do {
                guard let exchange = try environment.store.exchange(id: id) else {
                    return apply(.finished(.error("copy: the exchange is no longer in the store"), replay: false))
                }
                pendingCopies.append(CurlExporter.command(for: exchange))
            } catch {
                apply(.finished(.error("copy: could not read the exchange: \(error)"), replay: false))
            }
        case .recordHistory(let entry, let kind):
            environment.history.record(entry, for: kind.historyName)
        case .countRank(let request):
            rankCounter.count(request, store: environment.store, inbox: inbox)
        }
    }

    /// Why `exchange` may not go out without a `y`: not safe to repeat, or a credential that was redacted.
    private func reasonsToAsk(_ exchange: TraceExchange) -> [String] {
        let supplied = replayer?.suppliedHeaderNames(for: exchange) ?? []
        return [ReplaySafety.reasonToConfirm(exchange)].compactMap { $0 } + ReplayCredentials.notes(exchange, supplied: supplied)
    }

    /// Sends `pending` at once when nothing needs asking; otherwise the confirmation takes it (and only it).
    private func askOrSend(_ pending: PendingReplay) {
        if pending.reasons.isEmpty { send(pending) } else { apply(.replayNeedsConfirmation(pending)) }
    }

    private func send(_ pending: PendingReplay) {
        if let plan = pending.plan { startRepeat(pending.exchange, plan) } else { startReplay(pending.exchange) }
    }

    /// The exchange to replay; `nil` (after ending the replay with a message) when it cannot be read.
    private func loadForReplay(_ id: UUID) -> TraceExchange? {
        guard replayer != nil else {
            apply(.finished(.error("replay is not available here: no replayer is configured"), replay: true))
            return nil
        }
        do {
            guard let found = try environment.store.exchange(id: id) else {
                apply(.finished(.error("replay: the exchange is no longer in the store"), replay: true))
                return nil
            }
            return found
        } catch {
            apply(.finished(.error("replay: could not read the exchange: \(error)"), replay: true))
            return nil
        }
    }

    private func startReplay(_ exchange: TraceExchange) {
        guard let replayer else {
            apply(.finished(.error("replay is not available here: no replayer is configured"), replay: true))
            return
        }
        let token = UUID()
        let inbox = inbox
        replays[token] = Task {
            let message: StatusMessage
            do {
                message = StatusMessage(try await replayer.replay(exchange))
            } catch is CancellationError {
                message = .error("replay cancelled")
            } catch {
                message = .error("replay failed: \(error)")
            }
            inbox.post(.finished(message, replay: true), token: token)
        }
    }

    /// Opens each pending request in the editor, then sends what was saved (asking first when not safe to repeat).
    private func runEdits(on screen: any Screen) {
        let edits = pendingEdits
        pendingEdits = []
        for original in edits {
            let file = FileManager.default.temporaryDirectory
                // A name of its own per edit: two inspectors (or two tests) editing one exchange must not share it.
                .appendingPathComponent("loupe-edit-\(original.id.uuidString.lowercased().prefix(8))-\(UUID().uuidString.lowercased().prefix(8)).http").path
            let text = keptEdits[original.id] ?? EditableRequest.text(of: original)
            guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                apply(.finished(.error("edit: cannot write \(file)"), replay: true))
                continue
            }
            var problem: String?
            screen.suspend { problem = editor.edit(file) }
            lastDrawn = nil
            let saved = (try? String(contentsOfFile: file, encoding: .utf8)) ?? text
            // The text lives on in `keptEdits` when it cannot be sent, so the file is not needed past this point.
            try? FileManager.default.removeItem(atPath: file)
            if let problem {
                keptEdits[original.id] = saved
                apply(.finished(.error("edit: \(problem); nothing was sent"), replay: true))
                continue
            }
            do {
                let edited = try EditableRequest.request(from: saved, original: original)
                keptEdits[original.id] = nil
                askOrSend(PendingReplay(exchange: edited, edited: true, reasons: reasonsToAsk(edited)))
            } catch {
                keptEdits[original.id] = saved
                apply(.finished(.error("edit: \(error); nothing was sent (your text is kept: e reopens it)"),
                                replay: true))
            }
        }
    }

    /// Sends `exchange` `plan.times` times, `plan.concurrency` at once, posting progress and then a summary.
    private func startRepeat(_ exchange: TraceExchange, _ plan: RepeatPlan) {
        guard let replayer else {
            apply(.finished(.error("replay is not available here: no replayer is configured"), replay: true))
            return
        }
        let token = UUID()
        let inbox = inbox
        let target = "\(exchange.method) \(exchange.host)\(exchange.pathAndQuery)"
        replays[token] = Task {
            let clock = ContinuousClock()
            let start = clock.now
            var summary = RepeatSummary(target: target)
            await withTaskGroup(of: ExchangeReplayResult?.self) { group in
                var started = 0
                func startOne() {
                    started += 1
                    group.addTask { try? await replayer.replayResult(exchange) }
                }
                while started < min(plan.concurrency, plan.times) { startOne() }
                while let result = await group.next() {
                    if let result, result.status != nil { summary.results.append(result) } else { summary.errors += 1 }
                    let done = summary.results.count + summary.errors
                    inbox.post(.finished(StatusMessage("repeating \(target): \(done) of \(plan.times)…"), replay: false),
                               token: UUID())
                    if Task.isCancelled { group.cancelAll() } else if started < plan.times { startOne() }
                }
            }
            summary.elapsed = clock.now - start
            inbox.post(.finished(StatusMessage(summary.line, isError: summary.errors > 0), replay: true), token: token)
        }
    }

    private func applyInbox() {
        for (token, action) in inbox.drain() {
            replays[token] = nil
            apply(action)
        }
    }

    private func cancelReplays() {
        for task in replays.values { task.cancel() }
    }
}
