import Foundation
import LoupeApproval

extension TUIApp {
    /// Writes the person's decision beside the store, where the asking `loupe mcp` reads it. A request the agent
    /// withdrew meanwhile (it cancelled the call, or its server ended) gets no decision, and the status line says
    /// nothing was done.
    func decideAgentRequest(_ id: String, approved: Bool, what: String) {
        guard let queue = environment.agents else { return }
        guard queue.pending().contains(where: { $0.id == id }) else {
            apply(.finished(.error("withdrawn before the answer: \(what); nothing was done"), replay: false))
            apply(.poll)
            return
        }
        do {
            try queue.decide(id, approved: approved)
        } catch {
            apply(.finished(.error("could not record the decision on \(what): \(error.localizedDescription)"), replay: false))
            return
        }
        apply(.finished(StatusMessage(approved ? "approved: \(what)" : "refused: \(what); nothing was sent"), replay: false))
        // The decided request leaves screen 6 now, not at the next poll.
        apply(.poll)
    }
}
