import Loupe
import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFilter

extension TUIState {
    /// Applies `action` and returns the effects the app must carry out. Reads the store through `environment`;
    /// never writes, waits or draws.
    package mutating func update(_ action: TUIAction, environment: TUIEnvironment) -> [TUIEffect] {
        pendingEffects = []
        readFailures = []
        now = environment.wallClock()
        defer {
            if let failure = readFailures.last {
                storeProblem = failure
            } else if case .poll = action {
                storeProblem = nil
            }
        }
        switch action {
        case .key(let key):
            if let question = agentQuestion {
                answerAgentQuestion(key, question)
            } else if let pending = replay.pending {
                answerConfirmation(key, pending)
            } else if prompt != nil {
                promptKey(key, environment)
            } else if case .paste = key {
                // Pasted text is never keys: outside a prompt there is nothing to type it into.
                status = .error("a paste goes into a prompt: open one first (\(keymap.hint(.filter, in: top.keyContext)), "
                    + "\(keymap.hint(.search, in: top.keyContext)) or \(keymap.hint(.commandPrompt, in: top.keyContext)))")
            } else if let command = keymap.command(for: key, in: top.keyContext) {
                run(command, argument: nil, environment)
            }
        case .mouse(let event, let double):
            mouse(event, double: double, environment)
        case .command(let command, let argument):
            run(command, argument: argument, environment)
        case .resized(let newSize):
            resize(to: newSize, environment)
        case .poll:
            // Exchanges checked since the last poll may answer `~drift` or `~op` differently.
            answerContractFilter(environment)
            // The screen on top, and the list the title bar counts; other screens under it read what they
            // missed when they are on top again.
            poll(environment)
        case .frame:
            checkPrompt(environment)
        case .settle:
            forEachScreen(environment) { screen, context in
                if screen.hasDeferredWork { screen.refresh(.settle, context: &context) }
            }
        case .replayNeedsConfirmation(let pending):
            replay = .confirming(pending)
            status = .error(([pending.question(yes: keymap.hint(.confirmReplay, in: .confirm))] + pending.reasons).joined(separator: " · "))
        case .finished(let message, let endsReplay):
            if endsReplay {
                replay = .idle
                isRepeating = false
            }
            status = message
        case .progress(let message):
            status = message
        case .exported(let message, let clipboard):
            status = message
            if let clipboard { pendingEffects.append(.copy(clipboard)) }
        case .rankCounted(let count):
            forEachScreen(environment) { $0.refresh(.rankCounted(count), context: &$1) }
        }
        if screens.count < polledDepth {
            // A screen covered during polls is on top again: it reads what it missed.
            withTop(environment) { $0.refresh(.storeChanged, context: &$1) }
        }
        polledDepth = screens.count
        return pendingEffects
    }

    /// `y` (the keymap's `confirm-replay`) sends exactly what was asked about; any other key (`n`, Esc, a stray
    /// key, a paste) cancels: the answer defaults to no. Either way the pending replay leaves with the phase.
    private mutating func answerConfirmation(_ key: Key, _ pending: PendingReplay) {
        guard keymap.command(for: key, in: .confirm) == .confirmReplay else {
            replay = .idle
            isRepeating = false
            status = StatusMessage("replay cancelled; nothing was sent")
            return
        }
        replay = .running
        let edited = pending.edited ? "the edited " : ""
        status = StatusMessage(pending.plan.map { "repeating \(edited)\(replayTarget) \(Quantity.count($0.times))× …" }
            ?? "replaying \(edited)\(replayTarget)…")
        pendingEffects.append(.sendConfirmed(pending))
    }

    private mutating func mouse(_ event: MouseEvent, double: Bool, _ environment: TUIEnvironment) {
        guard prompt == nil, agentQuestion == nil, replay == .idle || replay == .running else { return }
        guard layout.content.contains(x: event.x, y: event.y) || event.kind != .press else { return }
        withTop(environment) { $0.mouse(event, double: double, context: &$1) }
    }

    /// Runs a command: the TUI's own first (prompts, help, session changes, effects), then the top
    /// screen's.
    package mutating func run(_ command: Command, argument: String?, _ environment: TUIEnvironment) {
        status = nil
        if case .confirming = replay { replay = .idle }
        agentQuestion = nil
        if runGlobal(command, argument: argument, environment) { return }
        let handled = withTop(environment) { $0.perform(command, argument: argument, context: &$1) }
        if !handled {
            status = .error("\(command.name): not available on the \(top.title) screen")
        }
    }

    /// The commands that belong to no one screen.
    private mutating func runGlobal(_ command: Command, argument: String?,
                                    _ environment: TUIEnvironment) -> Bool {
        switch command {
        case .quit:
            pendingEffects.append(.quit)
        case .help:
            guard top.keyContext != .help else { return true }
            push(HelpScreen(for: top.keyContext, keymap: keymap, area: layout.content))
        case .back where replay == .running && isRepeating:
            // Esc stops a running repeat before it goes back anywhere: the one key that always means "stop".
            pendingEffects.append(.stopRepeat)
            status = StatusMessage("stopping the repeat: no more are sent; those in flight end and are recorded…")
        case .back:
            if screens.count > 1 {
                pop()
            } else {
                session.search = nil
            }
        case .exchanges:
            park()
            popToRoot()
        case .timeline:
            showTimeline(environment)
        case .circuits, .metrics:
            showBoard(command == .circuits ? .circuits : .metrics, environment)
        case .rules:
            showRules(environment)
        case .agents:
            showAgents(environment)
        case .approveAction, .refuseAction:
            return decideAgentRequest(command)
        case .link:
            guard let listener else {
                status = .error("not listening: loupe tui --listen PORT links apps")
                return true
            }
            status = StatusMessage(listener.link)
        case .resetScenarios:
            guard serving != nil else {
                status = .error("not serving: loupe tui --serve SOURCE serves a recording")
                return true
            }
            pendingEffects.append(.resetScenarios)
            status = StatusMessage("scenarios reset: every recorded sequence starts over at its first answer")
        case .newRule:
            newRule(argument, environment)
        case .commandPrompt:
            openPrompt(.command, text: argument ?? "", environment)
        case .filter:
            if let argument { applyFilter(argument, environment) } else {
                openPrompt(.filter, text: session.filterText ?? "", environment)
            }
        case .search:
            if let argument { search(argument, forward: true, fromCurrent: true, environment) } else {
                openPrompt(.search, text: "", environment)
            }
        case .searchNext, .searchPrevious:
            // A screen may give n / N a meaning of its own (the diff: the next difference).
            if withTop(environment, { $0.perform(command, argument: argument, context: &$1) }) { return true }
            guard let text = session.search else {
                status = StatusMessage("no search yet: \(keymap.hint(.search, in: top.keyContext)) searches")
                return true
            }
            search(text, forward: command == .searchNext, fromCurrent: false, environment)
        case .sortNext, .reverse, .sort:
            // The metrics table sorts its own columns; everywhere else these order the exchanges.
            if top.keyContext == .metrics, withTop(environment, { $0.perform(command, argument: argument, context: &$1) }) {
                return true
            }
            changeOrder(command, argument: argument, environment)
        case .showMarked:
            guard session.showsMarkedOnly || !session.marks.isEmpty else {
                status = StatusMessage("nothing is marked: \(keymap.hint(.mark, in: top.keyContext)) marks the selected exchange")
                return true
            }
            session.showsMarkedOnly.toggle()
            if session.showsMarkedOnly { popToRoot() }
            refreshQuery(environment)
            status = StatusMessage(session.showsMarkedOnly ? "showing the \(session.marks.count) marked" : "showing all")
        case .unmarkAll:
            let count = session.marks.count
            session.marks = []
            session.showsMarkedOnly = false
            refreshQuery(environment)
            status = StatusMessage("unmarked \(count)")
        case .mark where top.keyContext != .exchanges:
            guard let id = top.selection?.id else { return false }
            if session.marks.remove(id) == nil { session.marks.insert(id) }
            status = StatusMessage(session.marks.contains(id) ? "marked" : "unmarked")
        case .export:
            export(argument, environment)
        case .copyCurl:
            guard let id = top.selection?.id else {
                status = .error("nothing selected to copy")
                return true
            }
            pendingEffects.append(.copyCurl(id))
        case .replay:
            replaySelected()
        case .repeatReplay:
            repeatSelected(argument, environment)
        case .editReplay:
            guard let summary = top.selection else {
                status = .error("nothing selected to edit")
                return true
            }
            guard canReplay, replay == .idle else {
                status = .error(canReplay ? "a replay is still running" : "replay is not available here: no replayer is configured")
                return true
            }
            replay = .running
            isRepeating = false
            replayTarget = "\(summary.method) \(summary.host)\(summary.pathAndQuery)"
            pendingEffects.append(.edit(summary.id))
        case .diff:
            guard let summary = top.selection else {
                status = .error("nothing selected: \(keymap.hint(.diff, in: top.keyContext)) compares a replay (↻) with its original")
                return true
            }
            var context = makeContext(environment)
            if let screen = DiffScreen(replay: summary, context: &context) { push(screen) }
            if let message = context.status { status = message }
        default:
            return false
        }
        return true
    }

    private mutating func replaySelected() {
        guard let summary = top.selection else {
            status = .error("nothing to replay yet")
            return
        }
        let id = summary.id
        guard canReplay else {
            status = .error("replay is not available here: no replayer is configured")
            return
        }
        guard replay == .idle else {
            let replayKey = keymap.hint(.replay, in: top.keyContext)
            status = StatusMessage(isRepeating
                ? "a repeat is running: \(keymap.hint(.back, in: top.keyContext)) stops it; \(replayKey) is ignored until it ends"
                : "a replay is still running: \(replayKey) is ignored until it ends")
            return
        }
        replay = .running
        isRepeating = false
        replayTarget = "\(summary.method) \(summary.host)\(summary.pathAndQuery)"
        status = StatusMessage("replaying \(replayTarget)…")
        pendingEffects.append(.replay(id))
    }

    /// `R`, or `:repeat-replay TIMES [CONCURRENCY]`: without numbers, a prefilled prompt to edit them.
    private mutating func repeatSelected(_ argument: String?, _ environment: TUIEnvironment) {
        guard let argument else {
            openPrompt(.command, text: "repeat-replay 10 2", environment)
            return
        }
        guard let summary = top.selection else {
            status = .error("nothing to repeat yet")
            return
        }
        switch RepeatPlan.parse(argument) {
        case .failure(let problem):
            status = .error("repeat-replay: \(problem.message)")
        case .success(let plan):
            guard canReplay else {
                status = .error("replay is not available here: no replayer is configured")
                return
            }
            guard replay == .idle else {
                status = StatusMessage(isRepeating ? "a repeat is running: \(keymap.hint(.back, in: top.keyContext)) stops it"
                    : "a replay is still running: wait for it to end")
                return
            }
            replay = .running
            isRepeating = true
            replayTarget = "\(summary.method) \(summary.host)\(summary.pathAndQuery)"
            status = StatusMessage("repeating \(replayTarget) \(Quantity.count(plan.times))× … "
                                   + "\(keymap.hint(.back, in: top.keyContext)) stops it")
            pendingEffects.append(.repeatReplay(summary.id, plan))
        }
    }

    /// After the filter, order or marks-only switch changed: every screen re-reads.
    mutating func refreshQuery(_ environment: TUIEnvironment) {
        forEachScreen(environment) { $0.refresh(.queryChanged, context: &$1) }
    }

    private mutating func changeOrder(_ command: Command, argument: String?, _ environment: TUIEnvironment) {
        var order = session.order
        switch command {
        case .reverse:
            order.descending.toggle()
        case .sortNext:
            let keys = ExchangeSortKey.allCases
            order.key = keys[((keys.firstIndex(of: order.key) ?? 0) + 1) % keys.count]
            order.descending = order.key.startsDescending
        default:
            let word = argument?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let parts = word.split(separator: " ")
            guard let first = parts.first, let key = ExchangeSortKey(rawValue: String(first)) else {
                status = .error("sort: expected one of " + ExchangeSortKey.allCases.map(\.rawValue).joined(separator: ", ")
                                + ", then optionally asc or desc")
                return
            }
            order.key = key
            order.descending = parts.count > 1 ? parts[1].hasPrefix("desc") : key.startsDescending
        }
        session.order = order
        popToRoot()
        refreshQuery(environment)
        let next = keymap.label(of: .sortNext, in: .exchanges).map { " · \($0) next column" } ?? ""
        let reverse = keymap.label(of: .reverse, in: .exchanges).map { " · \($0) reverses" } ?? ""
        status = StatusMessage("sorted by \(order.key.rawValue) \(order.descending ? "↓" : "↑")\(next)\(reverse)")
    }

    /// Applies a filter expression to the whole store (empty clears it).
    mutating func applyFilter(_ text: String, _ environment: TUIEnvironment) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            session.filter = nil
            session.contractFilter = nil
            session.filterText = nil
            status = StatusMessage("filter cleared")
        } else {
            do {
                let parsed = try TraceFilter.parse(trimmed)
                guard !parsed.needsContract || contract != nil else {
                    status = .error("filter: " + TraceFilter.contractNeeded)
                    return
                }
                setFilter(parsed)
                session.filterText = trimmed
            } catch {
                status = .error("filter: \(error.message)")
                return
            }
        }
        // The timeline and the boards show the filtered exchanges themselves; a detail or a diff may not be one.
        if ![.timeline, .circuits, .metrics].contains(top.keyContext) { popToRoot() }
        refreshQuery(environment)
    }

    mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, _ environment: TUIEnvironment) {
        guard !text.isEmpty else {
            session.search = nil
            return
        }
        session.search = text
        let found = withTop(environment) { $0.search(text, forward: forward, fromCurrent: fromCurrent, context: &$1) }
        if !found { status = .error("not found: \(text)") }
    }
}

extension Rect {
    /// Whether the cell at (`x`, `y`) lies inside.
    package func contains(x: Int, y: Int) -> Bool {
        x >= self.x && x < maxX && y >= self.y && y < maxY
    }
}
