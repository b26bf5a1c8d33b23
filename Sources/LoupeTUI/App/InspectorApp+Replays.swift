import Foundation
import LoupeTrace
import LoupeReplay

/// Replays run in child tasks (one request, a repeat, an edited request), each posting its result to the inbox.
extension InspectorApp {
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

    /// Opens each pending request in the editor, then sends what was saved (asking first when not safe to repeat).
    func runEdits(on screen: any Screen) {
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
    func startRepeat(_ exchange: TraceExchange, _ plan: RepeatPlan) {
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

    func cancelReplays() {
        for task in replays.values { task.cancel() }
    }
}
