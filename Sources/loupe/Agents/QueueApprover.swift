import Foundation
import LoupeApproval

/// Asks through the ``AgentQueue``: files the request, waits for `loupe approve` or the TUI's screen 6 to decide, and
/// refuses when nobody has answered within `patience`, withdrawing the request so it cannot be approved later.
struct QueueApprover: AgentApprover {
    let queue: AgentQueue
    var patience: Duration = .seconds(600)
    var poll: Duration = .milliseconds(200)
    var clock: any Clock<Duration> = ContinuousClock()
    let log: @Sendable (String) -> Void

    func approve(_ request: AgentRequest) async -> Bool {
        let id: String
        do {
            id = try queue.submit(request)
        } catch {
            log("loupe mcp: could not file the request for approval (\(error.localizedDescription)); refused")
            return false
        }
        defer { queue.withdraw(id) }
        log("loupe mcp: waiting for approval (screen 6 of `loupe tui`, or `loupe approve`, on this store): \(request.summary)")
        var waited: Duration = .zero
        while waited < patience {
            if let decided = queue.decision(id) { return decided }
            do {
                try await clock.sleep(for: poll)
            } catch {
                return false  // the call was cancelled: nothing is done
            }
            waited += poll
        }
        log("loupe mcp: nobody answered within \(patience); refused: \(request.summary)")
        return queue.decision(id) ?? false
    }
}
