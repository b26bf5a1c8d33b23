import Foundation
import LoupeTrace

/// Runs the inspector: polls a ``TraceStore``, reads keys from a ``Screen``, updates the `InspectorState`,
/// carries out effects and draws.
///
/// ``run(on:)`` is the loop for a real terminal. Tests drive the same steps without sleeping: ``refresh()``
/// polls the store, ``handle(_:)`` presses a key, ``turn(on:waitingUpTo:)`` reads queued keys and draws, and
/// ``settle()`` waits for replays started in the background.
///
/// Not `Sendable`: one task owns the app while it runs. Replays run in child tasks that hand their result back
/// through a locked inbox, never by touching the app.
public final class InspectorApp {
    /// The current model.
    package private(set) var state: InspectorState
    /// Whether the user quit.
    public private(set) var hasQuit = false

    private let store: any TraceStore
    private let replayer: (any ExchangeReplaying)?
    private let pollInterval: Duration
    private let filter: InspectorFilter?
    private let inbox = ActionInbox()
    private var replays: [UUID: Task<Void, Never>] = [:]
    /// The exchange waiting for the user's y/N, so confirming sends exactly what was shown.
    private var awaitingConfirmation: TraceExchange?
    /// Most keys discarded at once: a bound, so endless input cannot keep the loop from drawing.
    private static let typeaheadLimit = 1 << 20
    private var lastDrawn: Buffer?
    private static let pollBatch = 1_000

    /// An inspector over `store`, titled `storeName` (usually its path); `replayer` enables `r`.
    ///
    /// - Parameters:
    ///   - pollInterval: How often ``run(on:)`` asks the store for new exchanges.
    ///   - filter: Which rows to show.
    ///   - timeZone: The clock column's time zone.
    public init(store: any TraceStore, storeName: String, replayer: (any ExchangeReplaying)?,
                pollInterval: Duration = .milliseconds(200), filter: InspectorFilter? = nil,
                timeZone: TimeZone = .current) {
        self.store = store
        self.replayer = replayer
        self.pollInterval = pollInterval
        self.filter = filter
        self.state = InspectorState(storeName: storeName, size: Size(width: 80, height: 24),
                                    canReplay: replayer != nil, timeZone: timeZone)
        state.filterDescription = filter?.description
    }

    /// Runs until the user quits (returns) or the task is cancelled (throws `CancellationError`).
    ///
    /// The caller owns the terminal: shut the screen down in a `defer` so it is restored on every exit.
    public func run(on screen: any Screen) async throws {
        defer { cancelReplays() }
        let clock = ContinuousClock()
        var nextPoll = clock.now
        while true {
            try Task.checkCancellation()
            if clock.now >= nextPoll {
                refresh()
                nextPoll = clock.now.advanced(by: pollInterval)
            }
            let wait = min(max(.zero, nextPoll - clock.now), .milliseconds(100))
            guard turn(on: screen, waitingUpTo: wait) else { return }
            await Task.yield()
        }
    }

    /// One turn of the loop without polling: applies finished replays, reads a key (waiting up to `timeout`) and
    /// any keys already queued behind it, and draws if the picture changed.
    /// - Returns: `false` once the user has quit.
    @discardableResult
    package func turn(on screen: any Screen, waitingUpTo timeout: Duration = .zero) -> Bool {
        applyInbox()
        if state.size != screen.size { apply(.resized(screen.size)) }
        var key = screen.nextKey(timeout: timeout)
        var handled = 0
        var replayKeyPressed = false
        while let pressed = key, !hasQuit {
            let phase = state.replay
            if pressed == .resize { apply(.resized(screen.size)) } else { handle(pressed) }
            handled += 1
            if state.replay != phase, state.replay != .idle {
                // This key started a replay or opened its confirmation: keys typed before the user could see that
                // (the rest of a paste) must not answer the prompt or fire more replays.
                replayKeyPressed = true
                discardTypeahead(on: screen)
                break
            }
            key = handled < 64 ? screen.nextKey(timeout: .zero) : nil
        }
        guard !hasQuit else { return false }
        applyInbox()
        draw(on: screen)
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

    /// Polls the store for exchanges written since the last poll (by this or another process). A failed read
    /// becomes a status message.
    package func refresh() {
        do {
            var summaries: [TraceSummary]
            var through = state.lastSequence
            if !state.hasLoaded {
                summaries = try store.recent(limit: state.rowLimit)
            } else {
                summaries = []
                for _ in 0..<10 {
                    let batch = try store.summaries(after: through, limit: Self.pollBatch)
                    summaries += batch
                    through = max(through, batch.map(\.sequence).max() ?? through)
                    if batch.count < Self.pollBatch { break }
                }
            }
            through = max(through, summaries.map(\.sequence).max() ?? through)
            let total = summaries.isEmpty && state.hasLoaded ? nil : try store.count()
            let shown = filter.map { filter in summaries.filter(filter.matches) } ?? summaries
            apply(.summariesLoaded(shown, through: through, total: total))
        } catch {
            apply(.storeFailed(String(describing: error)))
        }
    }

    /// Handles one key press as the keymap says (`.resize` is handled by ``turn(on:waitingUpTo:)``).
    package func handle(_ key: Key) {
        apply(.key(key))
    }

    /// Sends `action` through ``InspectorState/update(_:)`` and carries out its effects.
    package func apply(_ action: InspectorAction) {
        for effect in state.update(action) {
            perform(effect)
        }
    }

    /// Waits for every replay started so far and applies its result.
    package func settle() async {
        while !replays.isEmpty {
            for task in replays.values { await task.value }
            applyInbox()
        }
    }

    /// What the screen shows for the current state.
    package func render() -> Buffer {
        InspectorRenderer.render(state)
    }

    /// Draws the current state on `screen` when it differs from what was drawn last.
    package func draw(on screen: any Screen) {
        let buffer = render()
        guard buffer != lastDrawn else { return }
        screen.draw(buffer)
        lastDrawn = buffer
    }

    private func perform(_ effect: InspectorEffect) {
        switch effect {
        case .quit:
            hasQuit = true
            cancelReplays()
        case .loadDetail(let id):
            do {
                if let exchange = try store.exchange(id: id) {
                    apply(.detailLoaded(exchange))
                } else {
                    apply(.detailFailed(id: id, reason: "This exchange is no longer in the store."))
                }
            } catch {
                apply(.detailFailed(id: id, reason: "Could not read the exchange: \(error)"))
            }
        case .replay(let id):
            guard let exchange = loadForReplay(id) else { return }
            if let reason = ReplaySafety.reasonToConfirm(exchange) {
                awaitingConfirmation = exchange
                apply(.replayNeedsConfirmation(id: id, reason: reason))
            } else {
                startReplay(exchange)
            }
        case .sendReplay(let id):
            let confirmed = awaitingConfirmation?.id == id ? awaitingConfirmation : loadForReplay(id)
            awaitingConfirmation = nil
            if let confirmed { startReplay(confirmed) }
        }
    }

    /// The exchange to replay; `nil` (after ending the replay with a message) when it cannot be read.
    private func loadForReplay(_ id: UUID) -> TraceExchange? {
        guard replayer != nil else {
            apply(.replayFinished(.error("replay is not available here: no replayer is configured")))
            return nil
        }
        do {
            guard let found = try store.exchange(id: id) else {
                apply(.replayFinished(.error("replay: the exchange is no longer in the store")))
                return nil
            }
            return found
        } catch {
            apply(.replayFinished(.error("replay: could not read the exchange: \(error)")))
            return nil
        }
    }

    private func startReplay(_ exchange: TraceExchange) {
        guard let replayer else {
            apply(.replayFinished(.error("replay is not available here: no replayer is configured")))
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
            inbox.post(.replayFinished(message), token: token)
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
