import MCP

/// The tools `loupe mcp` offers an agent: one table, feeding `tools/list`, the dispatch in ``AgentToolbox`` and
/// Documentation/Agents.md (whose tool table `AgentToolsTests` checks against this one).
enum AgentTool: String, CaseIterable, Sendable {
    case listExchanges = "list_exchanges"
    case getExchange = "get_exchange"
    case search
    case stats
    case explainExchange = "explain_exchange"
    case listRules = "list_rules"
    case replayExchange = "replay_exchange"
    case addRule = "add_rule"

    /// Tools that change something outside the server: offered only with `--allow-actions`, each held until a
    /// person approves it.
    var isAction: Bool { self == .replayExchange || self == .addRule }

    /// One line an agent can act on: what the tool answers, and in what shape.
    var summary: String {
        switch self {
        case .listExchanges:
            "List recorded HTTP exchanges (newest first), optionally filtered with Loupe's filter language, e.g. "
                + "'~c 5xx', '~m POST & ~d api.example.com', '~dur >1s'. Returns the same JSON as `loupe list --json`."
        case .getExchange:
            "One exchange by #sequence, id or id prefix: request, response, attempts (each retry with its reason), "
                + "events and timing, as `loupe show --json`. Bodies are cut to max_body_bytes; `size` is the whole."
        case .search:
            "Find exchanges whose URL, headers or request/response body contain the text (not a regex). Newest first."
        case .stats:
            "Per operation and per host: count, error and retry rates, p50/p95/p99 latency, bytes, breaker "
                + "transitions, as `loupe stats --json`."
        case .explainExchange:
            "The story of one exchange in words: each attempt, why it was retried or refused, which rule or edit "
                + "changed it, and how it ended."
        case .listRules:
            "The rules (mocks, faults, rewrites, breakpoints) in the rules file the server was given, with how many "
                + "recorded exchanges each acted on."
        case .replayExchange:
            "Send a recorded request again and record the answer beside the original. Held until a person "
                + "approves it; answers what was sent and what came back, or that it was refused."
        case .addRule:
            "Append one rule (TOML, as in Documentation/Rules.md) to the server's rules file. Held until a person "
                + "approves it."
        }
    }

    /// The tool's arguments as JSON Schema.
    var inputSchema: Value {
        func object(_ properties: [String: Value], required: [String] = []) -> Value {
            .object(["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
                     "additionalProperties": false])
        }
        let filter: Value = .object(["type": "string", "description": "A filter in Loupe's filter language (Documentation/Filters.md)."])
        let id: Value = .object(["type": "string", "description": "#sequence (e.g. #42 or 42), a whole id or a unique id prefix."])
        switch self {
        case .listExchanges:
            return object([
                "filter": filter,
                "limit": .object(["type": "integer", "minimum": 1, "maximum": .int(AgentLimits.exchanges.upperBound), "default": 50]),
                "order": .object(["type": "string", "enum": ["newest", "oldest"], "default": "newest"]),
            ])
        case .getExchange:
            return object([
                "id": id,
                "max_body_bytes": .object(["type": "integer", "minimum": 0, "maximum": .int(AgentLimits.bodyBytes.upperBound),
                                           "default": .int(AgentLimits.defaultBodyBytes)]),
                "max_messages": .object(["type": "integer", "minimum": 0, "maximum": .int(AgentLimits.messages.upperBound),
                                         "default": .int(AgentLimits.defaultMessages)]),
            ], required: ["id"])
        case .search:
            return object([
                "text": .object(["type": "string", "minLength": 1, "maxLength": .int(AgentLimits.searchText.upperBound)]),
                "filter": filter,
                "limit": .object(["type": "integer", "minimum": 1, "maximum": .int(AgentLimits.exchanges.upperBound), "default": 50]),
            ], required: ["text"])
        case .stats:
            return object([
                "filter": filter,
                "window": .object(["type": "string", "enum": ["1m", "5m", "15m", "1h", "all"], "default": "all"]),
            ])
        case .explainExchange, .replayExchange:
            return object(["id": id], required: ["id"])
        case .listRules:
            return object([:])
        case .addRule:
            return object(["rule": .object(["type": "string", "description": "One [[rule]] table in TOML."])], required: ["rule"])
        }
    }

    /// The tool as `tools/list` shows it, with the hints MCP clients use to decide what needs a person.
    var tool: Tool {
        Tool(name: rawValue, description: summary, inputSchema: inputSchema,
             annotations: .init(readOnlyHint: !isAction, destructiveHint: isAction ? false : nil,
                                idempotentHint: !isAction, openWorldHint: self == .replayExchange))
    }
}
