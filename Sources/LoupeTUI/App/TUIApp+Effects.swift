import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats
import LoupeReplay

/// The effects an update asks for, carried out: replays started or confirmed, exports handed to their threads,
/// copies sent to the clipboard, history recorded, ranks counted.
extension TUIApp {
    func flushCopies(to terminal: any Terminal) {
        for text in pendingCopies {
            let supported = terminal.copyToClipboard(text)
            copied.append(text)
            apply(.finished(supported ? StatusMessage("copied curl to the clipboard (OSC 52)")
                : .error("this terminal does not take OSC 52 clipboard writes: use \(state.keymap.hint(.export, in: state.top.keyContext)) to export curl to a file"), replay: false))
        }
        pendingCopies = []
    }

    func perform(_ effect: TUIEffect) {
        switch effect {
        case .quit:
            hasQuit = true
            // The loop ends; ``run(on:)`` then waits for the replays in flight, starting no more.
            stopRepeats()
            exports.cancelAll()
        case .replay(let id):
            guard let exchange = loadForReplay(id) else { return }
            askOrSend(PendingReplay(exchange: exchange, reasons: reasonsToAsk(exchange)))
        case .stopRepeat:
            stopRepeats()
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
        case .editRule, .editHeld:
            pendingRuleEdits.append(effect)
        case .resetScenarios:
            resetScenarios?()
        case .decideAgentRequest(let id, let approved, let what):
            decideAgentRequest(id, approved: approved, what: what)
        }
    }

    /// Why `exchange` may not go out without a `y`: not safe to repeat, or a credential that was redacted.
    func reasonsToAsk(_ exchange: TraceExchange) -> [String] {
        let supplied = replayer?.suppliedHeaderNames(for: exchange) ?? []
        let suppliedQuery = replayer?.suppliedQueryNames(for: exchange) ?? []
        return [ReplaySafety.reasonToConfirm(exchange)].compactMap { $0 }
            + ReplayCredentials.notes(exchange, supplied: supplied, suppliedQuery: suppliedQuery)
    }

    /// Sends `pending` at once when nothing needs asking; otherwise the confirmation takes it (and only it).
    func askOrSend(_ pending: PendingReplay) {
        if pending.reasons.isEmpty { send(pending) } else { apply(.replayNeedsConfirmation(pending)) }
    }

    func send(_ pending: PendingReplay) {
        if let plan = pending.plan { startRepeat(pending.exchange, plan) } else { startReplay(pending.exchange) }
    }

    /// The exchange to replay; `nil` (after ending the replay with a message) when it cannot be read.
    func loadForReplay(_ id: UUID) -> TraceExchange? {
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
}
