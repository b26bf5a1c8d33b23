import ArgumentParser
import Foundation
import Hummingbird
import Logging
import LoupeApproval
import LoupeLink
import LoupeTrace

/// `loupe mcp [STORE]`: the store, for coding agents, over the Model Context Protocol on stdin/stdout.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve a store to coding agents over the Model Context Protocol (stdio, or HTTP with --http).",
        discussion: """
            Tools: list_exchanges, get_exchange, search, stats, explain_exchange, list_rules; with --allow-actions
            also replay_exchange and add_rule, each held until a person approves it with `loupe approve` in a
            terminal (or, with --approve-in-terminal, on this process's own terminal, never on stdin). The store is opened read-only; answers are what the
            recorder stored, already redacted. Documentation/Agents.md has the tools and an agent's configuration.
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Flag(help: "Offer the actions (replay_exchange, add_rule); each waits for a person's approval.")
    var allowActions = false

    @Flag(help: "Ask for approval on this process's own terminal (/dev/tty) instead of through `loupe approve`.")
    var approveInTerminal = false

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Serve MCP's streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0 picks a free port); "
                               + "clients must send the bearer secret printed at start.", valueName: "PORT"),
            transform: PortArgument.parse)
    var http: PortArgument?

    @Option(help: ArgumentHelp("The rules file list_rules reads and add_rule appends to (default: $LOUPE_RULES).", valueName: "FILE"))
    var rules: String?

    func validate() throws {
        if approveInTerminal, !allowActions {
            throw ValidationError("--approve-in-terminal approves actions: add --allow-actions")
        }
    }

    func run() async throws {
        let (store, path) = try StoreAccess.openForReading(store)
        let environment = ProcessInfo.processInfo.environment
        let rulesPath = rules ?? environment["LOUPE_RULES"].flatMap { $0.isEmpty ? nil : $0 }
        let log: @Sendable (String) -> Void = { StandardStreams.error(TerminalText.line($0) + "\n") }
        var actions: AgentActions?
        if allowActions {
            let approver: any AgentApprover
            if approveInTerminal {
                let terminal = TerminalApprover()
                guard terminal.isAvailable else {
                    // MCP clients start servers in a session of their own, without a terminal.
                    throw CommandFailure.badInput(
                        "--approve-in-terminal: this process has no terminal (/dev/tty) to ask on; drop the flag and approve with `loupe approve`")
                }
                approver = terminal
            } else {
                approver = QueueApprover(queue: AgentQueue(storePath: path), log: log)
            }
            actions = AgentActions(approver: approver, replayer: StoreReplayer(path: path, environment: environment), log: log)
        }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: rulesPath, actions: actions)
        let server = AgentServer(toolbox)
        let mode = allowActions ? " with actions (each needs approval)" : ", read-only"
        guard let http else {
            log("loupe mcp: serving \(path) on stdio" + mode)
            await server.serve(LineTransport())
            return
        }
        let secret = LinkIdentity.makeSecret()
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: AgentHTTPResponder(server: server, secret: secret),
            configuration: .init(address: .hostname("127.0.0.1", port: http.value), serverName: nil),
            onServerRunning: { channel in
                bound.yield(channel.localAddress?.port ?? http.value)
                bound.finish()
            },
            logger: Logger(label: "loupe.mcp", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task {
            // A server that never ran (its port in use) ends the wait for its port too.
            defer { bound.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var port: Int?
        for await number in ports { port = number }
        guard let port else {
            if case .failure(let error) = await running.result {
                throw CommandFailure.badInput("--http \(http): cannot listen on 127.0.0.1:\(http) (\(error))")
            }
            return
        }
        // The address and the secret are the command's output: what goes into an agent's configuration.
        try StandardStreams.output(Data("url: http://127.0.0.1:\(port)\(AgentHTTPResponder.path)\nauthorization: Bearer \(secret)\n".utf8))
        log("loupe mcp: serving \(path) on http://127.0.0.1:\(port)\(AgentHTTPResponder.path)" + mode)
        await StopSignals.wait()
        running.cancel()
        _ = await running.result
    }
}
