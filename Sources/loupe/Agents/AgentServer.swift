import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// `loupe mcp`'s server: Loupe's tools (``AgentToolbox``) and resources — the store's summary and each exchange as
/// `loupe://exchange/ID` — behind the protocol state of ``MCPSession``, over stdio (``serve(_:)``) or streamable
/// HTTP (``AgentHTTPServer``, one ``answer(_:)`` per request).
///
/// Requests are answered concurrently (an action may wait minutes for a person while reads go on), at most
/// ``concurrency`` at once: past that the server stops reading input until one finishes, so a burst costs a bounded
/// number of tasks. A request the client cancels is stopped and gets no answer, as MCP asks.
actor AgentServer {
    static let exchangeScheme = "loupe://exchange/"
    static let summaryURI = "loupe://summary"
    static let concurrency = 16

    let toolbox: AgentToolbox
    /// The requests under way by id, each with a serial number, so a finished one never removes a later one that
    /// reused its id.
    private var running: [String: (serial: Int, task: Task<Void, Never>)] = [:]
    private var serial = 0
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ toolbox: AgentToolbox) { self.toolbox = toolbox }

    /// Serves one conversation on `transport` until its input ends, then waits for the requests under way.
    func serve(_ transport: LineTransport) async {
        var session = MCPSession()
        for await line in transport.lines() {
            switch session.receive(line) {
            case .reply(let text):
                transport.send(text)
            case .none:
                break
            case .cancel(let id):
                running.removeValue(forKey: id.compactText())?.task.cancel()
            case .run(let id, let request):
                while running.count >= Self.concurrency {
                    await withCheckedContinuation { slotWaiters.append($0) }
                }
                let key = id.compactText()
                serial += 1
                let mine = serial
                running[key]?.task.cancel()
                running[key] = (mine, Task {
                    let line = await self.answerLine(id: id, request)
                    if !Task.isCancelled { transport.send(line) }
                    await self.finished(key, serial: mine)
                })
            }
        }
        while !running.isEmpty {
            await withCheckedContinuation { slotWaiters.append($0) }
        }
    }

    private func finished(_ key: String, serial: Int) {
        if running[key]?.serial == serial { running.removeValue(forKey: key) }
        if !slotWaiters.isEmpty { slotWaiters.removeFirst().resume() }
    }

    /// The response line for `request`.
    nonisolated func answerLine(id: JSONValue, _ request: MCPSession.Request) async -> String {
        do {
            return MCPSession.response(id: id, result: try await answer(request))
        } catch {
            return MCPSession.error(id: id, error)
        }
    }

    /// The result's JSON text for `request`, or the JSON-RPC error it gets.
    nonisolated func answer(_ request: MCPSession.Request) async throws(JSONRPCError) -> String {
        switch request {
        case .listTools:
            return JSONValue.object(JSONObject([("tools", .array(toolbox.tools.map(\.json)))])).compactText()
        case .callTool(let name, let arguments, let client):
            return try await toolbox.call(name, arguments, client: client).json
        case .listResources:
            var resources = [Self.resource([("uri", Self.summaryURI), ("name", "Store summary"),
                                            ("description", "What the store holds: exchanges, errors and latency per operation")])]
            let recent = (try? toolbox.store.recent(limit: AgentLimits.listedResources)) ?? []
            for summary in recent.reversed() {
                resources.append(Self.resource([("uri", Self.exchangeScheme + ExchangeLabel.id(summary.id)),
                                                ("name", "#\(summary.sequence) \(summary.method) \(summary.url)")]))
            }
            return JSONValue.object(JSONObject([("resources", .array(resources))])).compactText()
        case .listResourceTemplates:
            let template = Self.resource([("uriTemplate", Self.exchangeScheme + "{id}"), ("name", "Exchange"),
                                          ("description", "One exchange by id, id prefix or sequence, as get_exchange answers")])
            return JSONValue.object(JSONObject([("resourceTemplates", .array([template]))])).compactText()
        case .readResource(let uri):
            let result: AgentToolResult
            if uri == Self.summaryURI {
                result = try await toolbox.call(AgentTool.stats.rawValue, nil)
            } else if uri.hasPrefix(Self.exchangeScheme) {
                let id = String(uri.dropFirst(Self.exchangeScheme.count))
                result = try await toolbox.call(AgentTool.getExchange.rawValue, JSONObject([("id", .string(id))]))
            } else {
                throw .resourceNotFound("no resource \(uri); resources/list names them")
            }
            if result.isError { throw .resourceNotFound(result.text) }
            let content = JSONValue.object(JSONObject([("uri", .string(uri)), ("mimeType", .string("application/json"))]))
            // The text is added as written, not re-encoded member by member: it can be a megabyte of body.
            let opened = String(content.compactText().dropLast())
            return #"{"contents":["# + opened + #","text":"# + JSONValue.quoted(result.text) + "}]}"
        }
    }

    private static func resource(_ members: [(String, String)]) -> JSONValue {
        .object(JSONObject(members.map { ($0.0, .string($0.1)) } + [("mimeType", .string("application/json"))]))
    }
}
