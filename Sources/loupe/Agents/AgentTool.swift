import Foundation
import LoupeTrace

/// The tools `loupe mcp` offers an agent: one table, feeding `tools/list`, the dispatch in ``AgentToolbox`` and
/// Documentation/Agents.md (whose tool table `AgentToolsTests` checks against this one).
enum AgentTool: String, CaseIterable, Sendable {
    case listExchanges = "list_exchanges"
    case getExchange = "get_exchange"
    case search
    case stats
    case explainExchange = "explain_exchange"
    case listRules = "list_rules"
    case compare
    case checkContract = "check_contract"
    case replayExchange = "replay_exchange"
    case addRule = "add_rule"

    /// Tools whose bad arguments are JSON-RPC errors (-32602) rather than tool errors: they take paths on this
    /// machine, and a path that is not a readable regular file is refused at the protocol, as a malformed call.
    var refusesAtProtocol: Bool { self == .compare || self == .checkContract }

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
        case .compare:
            "Compare two recordings (stores, HAR files or cassettes given as paths; or two filters of one) per "
                + "operation and host: what regressed, improved, appeared or went, with the statistics, as `loupe compare --json`."
        case .checkContract:
            "Check this store's exchanges against an OpenAPI document (a path): per operation, which drift from it "
                + "and how (status, content type, body schema, parameters), as `loupe check --json`."
        case .replayExchange:
            "Send a recorded request again and record the answer beside the original. Held until a person "
                + "approves it; answers what was sent and what came back, or that it was refused."
        case .addRule:
            "Append one rule (TOML, as in Documentation/Rules.md) to the server's rules file. Held until a person "
                + "approves it."
        }
    }

    /// The tool's arguments as JSON Schema.
    var inputSchema: JSONValue {
        // Written as JSON text (a test checks every one parses): the schema reads as what the client receives.
        let filter = #""filter": {"type": "string", "description": "A filter in Loupe's filter language (Documentation/Filters.md)."}"#
        let id = ##""id": {"type": "string", "description": "#sequence (e.g. #42 or 42), a whole id or a unique id prefix."}"##
        let limit = #""limit": {"type": "integer", "minimum": 1, "maximum": \#(AgentLimits.exchanges.upperBound), "default": 50}"#
        let properties: String
        var required: [String] = []
        switch self {
        case .listExchanges:
            properties = filter + ", " + limit + #", "order": {"type": "string", "enum": ["newest", "oldest"], "default": "newest"}"#
        case .getExchange:
            properties = id + #", "max_body_bytes": {"type": "integer", "minimum": 0, "maximum": \#(AgentLimits.bodyBytes.upperBound), "default": \#(AgentLimits.defaultBodyBytes)}"#
                + #", "max_messages": {"type": "integer", "minimum": 0, "maximum": \#(AgentLimits.messages.upperBound), "default": \#(AgentLimits.defaultMessages)}"#
            required = ["id"]
        case .search:
            properties = #""text": {"type": "string", "minLength": 1, "maxLength": \#(AgentLimits.searchText.upperBound)}, "# + filter + ", " + limit
            required = ["text"]
        case .stats:
            properties = filter + #", "window": {"type": "string", "enum": ["1m", "5m", "15m", "1h", "all"], "default": "all"}"#
        case .explainExchange, .replayExchange:
            properties = id
            required = ["id"]
        case .listRules:
            properties = ""
        case .compare:
            let path = #"{"type": "string", "minLength": 1, "maxLength": \#(AgentLimits.pathBytes), "description": "#
            properties = #""a": \#(path)"The baseline: a path to a trace store, HAR file or cassette."}, "#
                + #""b": \#(path)"The recording compared with it (default: a itself, with a_filter and b_filter)."}, "#
                + #""filter": {"type": "string", "description": "Only exchanges matching this filter, on both sides."}, "#
                + #""a_filter": {"type": "string", "description": "Only a's exchanges matching this filter."}, "#
                + #""b_filter": {"type": "string", "description": "Only b's exchanges matching this filter."}, "#
                + #""latency": {"type": ["number", "string"], "description": "Smallest latency change called, 0% to 1000% (10%)."}, "#
                + #""error_rate": {"type": ["number", "string"], "description": "Smallest error-rate change called, 0pt to 100pt (1pt)."}, "#
                + #""alpha": {"type": ["number", "string"], "description": "The chance of calling a change that is not there, 1e-9 to 0.5 (0.01)."}, "#
                + #""limit": {"type": "integer", "minimum": 1, "maximum": \#(AgentLimits.groups.upperBound), "default": \#(AgentLimits.defaultGroups), "description": "Operations, and hosts, listed at most."}"#
            required = ["a"]
        case .checkContract:
            properties = #""openapi": {"type": "string", "minLength": 1, "maxLength": \#(AgentLimits.pathBytes), "description": "A path to the OpenAPI 3.0/3.1 document, YAML or JSON."}, "#
                + filter
                + #", "limit": {"type": "integer", "minimum": 1, "maximum": \#(AgentLimits.groups.upperBound), "default": \#(AgentLimits.defaultGroups), "description": "Operations, and unmatched requests, listed at most."}"#
            required = ["openapi"]
        case .addRule:
            properties = #""rule": {"type": "string", "description": "One [[rule]] table in TOML."}"#
            required = ["rule"]
        }
        let names = required.map { JSONValue.quoted($0) }.joined(separator: ", ")
        let text = #"{"type": "object", "properties": {"# + properties + #"}, "required": ["# + names + #"], "additionalProperties": false}"#
        return JSONParser.parse(Data(text.utf8)) ?? .object(JSONObject())
    }

    /// The names of the tool's arguments, from its schema.
    var argumentNames: Set<String> {
        guard case .object(let schema) = inputSchema, case .object(let properties)? = schema["properties"] else { return [] }
        return Set(properties.keys)
    }

    /// The tool as `tools/list` shows it, with the hints MCP clients use to decide what needs a person.
    var json: JSONValue {
        var hints = JSONObject([("readOnlyHint", .bool(!isAction))])
        if isAction { hints["destructiveHint"] = .bool(false) }
        hints["idempotentHint"] = .bool(!isAction)
        hints["openWorldHint"] = .bool(self == .replayExchange)
        return .object(JSONObject([("name", .string(rawValue)), ("description", .string(summary)),
                                   ("inputSchema", inputSchema), ("annotations", .object(hints))]))
    }
}
