import Foundation
import LoupeTrace
import LoupeFormats
import LoupeReplay

/// The effects an update asks for, carried out: replays started or confirmed, exports handed to their threads,
/// copies sent to the clipboard, history recorded, ranks counted.
extension InspectorApp {
    func perform(_ effect: InspectorEffect) {
        switch effect {
        case .quit:
            hasQuit = true
            cancelReplays()
            exports.cancelAll()
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
            let plan = awaitingRepeat
            awaitingConfirmation = nil
            awaitingRepeat = nil
            guard let confirmed else { return }
            if let plan { startRepeat(confirmed, plan) } else { startReplay(confirmed) }
        case .repeatReplay(let id, let plan):
            guard let exchange = loadForReplay(id) else { return }
            if let reason = ReplaySafety.reasonToConfirm(exchange) {
                awaitingConfirmation = exchange
                awaitingRepeat = plan
                apply(.replayNeedsConfirmation(id: id, reason: "\(reason) · sends it \(plan.times)×"))
            } else {
                startRepeat(exchange, plan)
            }
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

    func flushCopies(to screen: any Screen) {
        for text in pendingCopies {
            let supported = screen.copyToClipboard(text)
            copied.append(text)
            apply(.finished(supported ? StatusMessage("copied curl to the clipboard (OSC 52)")
                : .error("this terminal does not take OSC 52 clipboard writes: use x to export curl to a file"), replay: false))
        }
        pendingCopies = []
    }
}
