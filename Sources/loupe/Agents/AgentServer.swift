import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import MCP

/// `loupe mcp`'s server: the MCP SDK's `Server` with Loupe's tools (``AgentToolbox``) and resources — the store's
/// summary and each exchange as `loupe://exchange/ID` — on any transport (stdio in the command, in memory in tests).
enum AgentServer {
    static let exchangeScheme = "loupe://exchange/"
    static let summaryURI = "loupe://summary"

    static func make(_ toolbox: AgentToolbox) async -> Server {
        let server = Server(
            name: "loupe", version: LoupeVersion.current,
            instructions: """
                Loupe's flight recorder: the HTTP exchanges an app made, with every attempt, retry, breaker decision \
                and rule, already redacted. Start with stats or list_exchanges (filters like '~c 5xx' or '~dur >1s'), \
                then get_exchange or explain_exchange on an exchange's #sequence.
                """,
            capabilities: .init(resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: toolbox.tools.map(\.tool))
        }
        await server.withMethodHandler(CallTool.self) { params in
            try await toolbox.call(params.name, params.arguments)
        }
        await server.withMethodHandler(ListResources.self) { _ in
            var resources = [Resource(name: "Store summary", uri: summaryURI,
                                      description: "What the store holds: exchanges, errors and latency per operation",
                                      mimeType: "application/json")]
            let recent = (try? toolbox.store.recent(limit: AgentLimits.listedResources)) ?? []
            for summary in recent.reversed() {
                resources.append(Resource(name: "#\(summary.sequence) \(summary.method) \(summary.url)",
                                          uri: exchangeScheme + ExchangeLabel.id(summary.id), mimeType: "application/json"))
            }
            return .init(resources: resources, nextCursor: nil)
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            .init(templates: [Resource.Template(uriTemplate: exchangeScheme + "{id}", name: "Exchange",
                                                description: "One exchange by id, id prefix or sequence, as get_exchange answers",
                                                mimeType: "application/json")])
        }
        await server.withMethodHandler(ReadResource.self) { params in
            let arguments: [String: Value]
            let tool: String
            if params.uri == summaryURI {
                (tool, arguments) = (AgentTool.stats.rawValue, [:])
            } else if params.uri.hasPrefix(exchangeScheme) {
                (tool, arguments) = (AgentTool.getExchange.rawValue, ["id": .string(String(params.uri.dropFirst(exchangeScheme.count)))])
            } else {
                throw MCPError.invalidParams("no resource \(params.uri); resources/list names them")
            }
            let result = try await toolbox.call(tool, arguments)
            let text = result.content.compactMap { content -> String? in
                if case .text(let text, _, _) = content { return text }
                return nil
            }.joined(separator: "\n")
            if result.isError == true { throw MCPError.invalidParams(text) }
            return .init(contents: [.text(text, uri: params.uri, mimeType: "application/json")])
        }
        return server
    }
}
