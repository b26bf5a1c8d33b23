/// What an agent asks to do, as the person deciding sees it (in `loupe approve`, screen 6 of `loupe tui`, or on the
/// server's terminal).
package struct AgentRequest: Sendable, Equatable {
    /// Who asks: the agent's client as it named itself in `initialize`, through `loupe mcp` (said so the person
    /// knows it is not their own action).
    package var origin: String
    /// The tool the agent called (`replay_exchange`, `add_rule`).
    package var tool: String
    /// One line: the action, its method and target, and how many requests it sends.
    package var summary: String
    /// What it would write, line by line (a rule's text), or nothing.
    package var detail: [String]

    package init(origin: String, tool: String, summary: String, detail: [String]) {
        self.origin = origin
        self.tool = tool
        self.summary = summary
        self.detail = detail
    }
}
