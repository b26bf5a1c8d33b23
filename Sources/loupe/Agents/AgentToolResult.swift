import LoupeTrace

/// What a tool answers: one text (JSON in the CLI's shapes, or sentences), and whether it is an error the agent
/// can correct its call from.
struct AgentToolResult: Equatable, Sendable {
    var text: String
    var isError = false

    /// The `tools/call` result's JSON text: one text content. The text is escaped as it is, never re-encoded
    /// member by member (it can hold a megabyte of body).
    var json: String {
        #"{"content":[{"type":"text","text":"# + JSONValue.quoted(text) + #"}],"isError":\#(isError)}"#
    }
}
