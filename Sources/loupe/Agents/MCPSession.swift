import Foundation
import Loupe
import LoupeTrace

/// One MCP conversation's protocol state, a value: each message in, what to do about it out. It checks the
/// JSON-RPC 2.0 envelope, runs the lifecycle (`initialize` with version negotiation, then `notifications/initialized`),
/// answers `initialize` and `ping` itself, and hands every request that needs the store to the caller as
/// ``Action/run(id:_:)``. The same machine serves stdio and streamable HTTP.
struct MCPSession: Sendable {
    /// The protocol versions this server speaks, oldest first; the last is offered to a client asking for another.
    static let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    /// The methods answered, for the error that names them.
    static let methods = ["initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/templates/list",
                          "resources/read"]

    static let instructions = """
        Loupe's flight recorder: the HTTP exchanges an app made, with every attempt, retry, breaker decision \
        and rule, already redacted. Start with stats or list_exchanges (filters like '~c 5xx' or '~dur >1s'), \
        then get_exchange or explain_exchange on an exchange's #sequence.
        """

    /// A request the store answers.
    enum Request: Equatable, Sendable {
        case listTools
        /// `client` is the name the client gave in `initialize`, for the origin of an action it asks for.
        case callTool(name: String, arguments: JSONObject?, client: String?)
        case listResources
        case listResourceTemplates
        case readResource(uri: String)
    }

    enum Action: Equatable, Sendable {
        /// Send this response line.
        case reply(String)
        /// Answer `request` and send the answer for `id` (unless it is cancelled first).
        case run(id: JSONValue, Request)
        /// The client gave up on the request `id`: stop it and send nothing for it.
        case cancel(id: JSONValue)
        /// A notification or a response: nothing to send.
        case none
    }

    /// The version agreed in `initialize`, nil before it.
    private(set) var version: String?
    /// The client's name from `initialize` (`clientInfo.name`, cut to ``clientNameLength`` characters): who asks,
    /// when it asks for an action.
    private(set) var client: String?
    static let clientNameLength = 64

    /// What to do about one message (a line of stdio, the body of an HTTP POST).
    mutating func receive(_ data: Data) -> Action {
        guard let message = JSONParser.parse(data) else {
            return .reply(Self.error(id: .null, .parseError("not JSON: a message is one JSON-RPC object")))
        }
        guard case .object(let object) = message else {
            if case .array = message {
                return .reply(Self.error(id: .null, .invalidRequest("batches are not part of MCP: send one message at a time")))
            }
            return .reply(Self.error(id: .null, .invalidRequest("a message is a JSON object")))
        }
        let id = object["id"]
        if let id, !Self.isValidID(id) {
            return .reply(Self.error(id: .null, .invalidRequest("id: expected a string or a number")))
        }
        guard object["jsonrpc"] == .string("2.0") else {
            return .reply(Self.error(id: id ?? .null, .invalidRequest("jsonrpc: expected \"2.0\"")))
        }
        guard let methodValue = object["method"] else {
            // A response to a request of ours: this server sends none, so there is nothing to match it with.
            if object["result"] != nil || object["error"] != nil { return .none }
            return .reply(Self.error(id: id ?? .null, .invalidRequest("method is required")))
        }
        guard case .string(let method) = methodValue else {
            return .reply(Self.error(id: id ?? .null, .invalidRequest("method: expected a string")))
        }
        let params: JSONObject?
        switch object["params"] {
        case nil, .null?: params = nil
        case .object(let members)?: params = members
        default:
            guard let id else { return .none }
            return .reply(Self.error(id: id, .invalidParams("params: expected an object")))
        }
        guard let id else { return notification(method, params) }
        switch request(method, params) {
        case .success(let action):
            if case .run(_, let request) = action { return .run(id: id, request) }
            if case .reply(let result) = action { return .reply(Self.response(id: id, result: result)) }
            return action
        case .failure(let error):
            return .reply(Self.error(id: id, error))
        }
    }

    private mutating func notification(_ method: String, _ params: JSONObject?) -> Action {
        switch method {
        case "notifications/cancelled":
            guard let id = params?["requestId"], Self.isValidID(id) else { return .none }
            return .cancel(id: id)
        default:
            // notifications/initialized needs nothing: requests are answered once `initialize` has been.
            return .none
        }
    }

    /// A request's answer (as `.reply` with the result's JSON text), or what the store must answer.
    private mutating func request(_ method: String, _ params: JSONObject?) -> Result<Action, JSONRPCError> {
        if method == "ping" { return .success(.reply("{}")) }
        if method == "initialize" {
            guard version == nil else { return .failure(.invalidRequest("already initialized")) }
            guard case .string(let asked)? = params?["protocolVersion"] else {
                return .failure(.invalidParams("protocolVersion: expected a string"))
            }
            let agreed = Self.versions.contains(asked) ? asked : Self.versions[Self.versions.count - 1]
            version = agreed
            if case .object(let info)? = params?["clientInfo"], case .string(let name)? = info["name"], !name.isEmpty {
                client = String(name.prefix(Self.clientNameLength))
            }
            return .success(.reply(Self.initializeResult(version: agreed)))
        }
        guard version != nil else {
            return .failure(.invalidRequest("not initialized: send initialize first"))
        }
        switch method {
        case "tools/list": return .success(.run(id: .null, .listTools))
        case "resources/list": return .success(.run(id: .null, .listResources))
        case "resources/templates/list": return .success(.run(id: .null, .listResourceTemplates))
        case "tools/call":
            guard case .string(let name)? = params?["name"] else { return .failure(.invalidParams("name: expected a string")) }
            switch params?["arguments"] {
            case nil, .null?: return .success(.run(id: .null, .callTool(name: name, arguments: nil, client: client)))
            case .object(let arguments)?: return .success(.run(id: .null, .callTool(name: name, arguments: arguments, client: client)))
            default: return .failure(.invalidParams("arguments: expected an object"))
            }
        case "resources/read":
            guard case .string(let uri)? = params?["uri"] else { return .failure(.invalidParams("uri: expected a string")) }
            return .success(.run(id: .null, .readResource(uri: uri)))
        default:
            return .failure(.methodNotFound(method))
        }
    }

    /// JSON-RPC ids are strings or numbers; MCP adds that they are never null.
    private static func isValidID(_ id: JSONValue) -> Bool {
        switch id {
        case .string, .number: true
        default: false
        }
    }

    private static func initializeResult(version: String) -> String {
        JSONValue.object(JSONObject([
            ("protocolVersion", .string(version)),
            ("capabilities", .object(JSONObject([
                ("tools", .object(JSONObject([("listChanged", .bool(false))]))),
                ("resources", .object(JSONObject([("subscribe", .bool(false)), ("listChanged", .bool(false))]))),
            ]))),
            ("serverInfo", .object(JSONObject([("name", .string("loupe")), ("version", .string(LoupeVersion.current))]))),
            ("instructions", .string(instructions)),
        ])).compactText()
    }

    /// A response line: `result` is the result's JSON text.
    static func response(id: JSONValue, result: String) -> String {
        #"{"jsonrpc":"2.0","id":"# + id.compactText() + #","result":"# + result + "}"
    }

    /// An error response line.
    static func error(id: JSONValue, _ error: JSONRPCError) -> String {
        #"{"jsonrpc":"2.0","id":"# + id.compactText() + #","error":"# + error.json.compactText() + "}"
    }
}
