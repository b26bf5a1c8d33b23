import Foundation
import Loupe
import LoupeTrace
import LoupeReplay

/// Replays run in child tasks (one request, a repeat, an edited request), each posting its result to the inbox.
extension TUIApp {
    func startReplay(_ exchange: TraceExchange) {
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

    /// Opens each pending request in the editor, then asks before sending what was saved.
    ///
    /// Nothing goes out unless the user changed something and then said `y` (issue 43.1): an editor that failed
    /// (vim's `:cq`), a file saved with the same bytes or not saved at all (`:q!`), and a text that reads back as
    /// the recorded request all send nothing and say so. A real edit always asks, whatever the method, and the
    /// question lists what changed.
    func runEdits(on terminal: any Terminal) {
        let edits = pendingEdits
        pendingEdits = []
        for original in edits {
            let text = keptEdits[original.id] ?? EditableRequest.text(of: original)
            // In a private directory removed afterwards with the editor's swap file, as every TUI edit is.
            let name = "replay-\(original.id.uuidString.lowercased().prefix(8)).http"
            var result: Result<String, ExternalEditor.Problem> = .failure(.init(message: "the editor did not run"))
            terminal.suspend { result = editor.editPrivately(text, named: name) }
            lastDrawn = nil
            let saved: String
            switch result {
            case .failure(let problem):
                // The text lives on in `keptEdits` when it cannot be sent: `e` reopens it.
                if let kept = problem.saved, kept != text { keptEdits[original.id] = kept }
                apply(.finished(.error("edit: \(problem.message); nothing was sent"), replay: true))
                continue
            case .success(let contents):
                saved = contents
            }
            guard saved != text else {
                apply(.finished(StatusMessage("edit: the file was not changed; nothing was sent"), replay: true))
                continue
            }
            do {
                let edited = try EditableRequest.request(from: saved, original: original)
                keptEdits[original.id] = nil
                let changes = RequestChanges.summary(from: original, to: edited)
                guard !changes.isEmpty else {
                    apply(.finished(StatusMessage("edit: the request is as recorded; nothing was sent (\(state.keymap.hint(.replay, in: state.top.keyContext)) replays it)"), replay: true))
                    continue
                }
                // Reasons are never empty here, so `askOrSend` always asks.
                askOrSend(PendingReplay(exchange: edited, edited: true,
                                        reasons: ["changed: " + changes.joined(separator: ", ")] + reasonsToAsk(edited)))
            } catch {
                keptEdits[original.id] = saved
                apply(.finished(.error("edit: \(error); nothing was sent (your text is kept: e reopens it)"),
                                replay: true))
            }
        }
    }

    /// Sends `exchange` `plan.times` times, `plan.concurrency` at once, posting progress and then a summary. Esc
    /// (``stopRepeats()``) starts no more; the summary then says `stopped after N of M`.
    func startRepeat(_ exchange: TraceExchange, _ plan: RepeatPlan) {
        guard let replayer else {
            apply(.finished(.error("replay is not available here: no replayer is configured"), replay: true))
            return
        }
        let token = UUID()
        let inbox = inbox
        let stop = RepeatStop()
        repeatStops[token] = stop
        let target = "\(exchange.method) \(exchange.host)\(exchange.pathAndQuery)"
        let stopHint = " \(state.keymap.hint(.back, in: state.top.keyContext)) stops it"
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
                while started < min(plan.concurrency, plan.times), !stop.isStopped { startOne() }
                while let result = await group.next() {
                    if let result, result.status != nil { summary.results.append(result) } else { summary.errors += 1 }
                    let done = summary.results.count + summary.errors
                    inbox.post(.finished(StatusMessage("repeating \(target): \(Quantity.count(done)) of \(Quantity.count(plan.times))…"
                                                         + (stop.isStopped ? " stopping" : stopHint)),
                                         replay: false), token: UUID())
                    if started < plan.times, !stop.isStopped { startOne() }
                }
            }
            summary.elapsed = clock.now - start
            if summary.results.count + summary.errors < plan.times { summary.planned = plan.times }
            inbox.post(.finished(StatusMessage(summary.line, isError: summary.errors > 0), replay: true), token: token)
        }
    }

    /// Starts no more sends of any running repeat; the sends in flight end on their own and are recorded.
    func stopRepeats() {
        for stop in repeatStops.values { stop.stop() }
    }

    /// Stops the repeats and waits for every replay in flight to end (each is recorded by then), saying so on
    /// `screen` while it waits: quitting never drops a request that went out (issue 43.3).
    func finishReplays(on terminal: any Terminal) async {
        stopRepeats()
        guard !replays.isEmpty else { return }
        apply(.progress(StatusMessage("quitting: waiting for the replays in flight to end and be recorded…")))
        draw(on: terminal)
        while !replays.isEmpty {
            for task in replays.values { await task.value }
            applyInbox()
        }
    }
}
