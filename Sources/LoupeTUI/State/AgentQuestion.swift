import LoupeApproval
import LoupeTrace

/// The question `a` opens on screen 6: approve this agent request? It names exactly what the request would send
/// or write, and only the confirm key (`y`) approves; any other key closes it and leaves the request waiting.
package struct AgentQuestion: Hashable, Sendable {
    /// The request's id in the ``AgentQueue``.
    package var id: String
    /// The request as it was when the question opened: what the person is shown is what is approved.
    package var entry: AgentQueue.Entry

    package init(id: String, entry: AgentQueue.Entry) {
        self.id = id
        self.entry = entry
    }

    /// `agent "claude-code" (loupe mcp): replay #12: POST https://… (1 request)`.
    package var what: String { TerminalText.line("\(entry.origin): \(entry.summary)") }

    /// The status line that asks: the action itself, so it fits (who asks is on the screen above it).
    package func question(yes: String) -> String {
        "Approve? \(yes)/N · \(TerminalText.line(entry.summary))"
    }

    /// The line under it: the answers, then what a rule would add.
    package func explanation(yes: String) -> String {
        let lines = entry.detail.count
        return (["\(yes) approves, any other key leaves it waiting"]
            + (lines == 0 ? [] : ["writes the \(lines == 1 ? "line" : "\(lines) lines") shown on screen 6"])).joined(separator: " · ")
    }
}
