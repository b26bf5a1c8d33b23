import LoupeTrace

/// A JSON-RPC 2.0 error object: the codes the specification defines, and MCP's "resource not found".
struct JSONRPCError: Error, Equatable, Sendable {
    var code: Int
    var message: String

    /// The text was not JSON.
    static func parseError(_ message: String) -> Self { Self(code: -32700, message: message) }
    /// JSON, but not a JSON-RPC request (no method, a wrong `jsonrpc`, an id that is not a string or number, a
    /// batch, a request before `initialize`, a line too long to read).
    static func invalidRequest(_ message: String) -> Self { Self(code: -32600, message: message) }
    static func methodNotFound(_ method: String) -> Self {
        Self(code: -32601, message: "no method \"\(method)\"; this server answers \(MCPSession.methods.joined(separator: ", "))")
    }
    static func invalidParams(_ message: String) -> Self { Self(code: -32602, message: message) }
    /// Something failed on the server's side that the caller cannot correct.
    static func internalError(_ message: String) -> Self { Self(code: -32603, message: message) }
    /// MCP's code for a resource URI that names nothing.
    static func resourceNotFound(_ message: String) -> Self { Self(code: -32002, message: message) }

    /// The error as the `error` member of a response.
    var json: JSONValue {
        .object(JSONObject([("code", .number(JSONNumber(String(code)))), ("message", .string(message))]))
    }
}
