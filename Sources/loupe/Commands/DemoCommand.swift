import ArgumentParser
import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeLink
import LoupeOTLP
import LoupeRules
import LoupeRulesFile
import LoupeTUI
import LoupeTrace
import LoupeWebSocket

/// `loupe demo`: a flaky API on loopback, traffic through the client, recorded and shown live.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a flaky API on 127.0.0.1 with traffic through Loupe, recorded and shown live."
    )

    @Option(help: "The trace store to record into (default: demo.sqlite beside the default store).")
    var store: String?

    @Flag(help: "Also stream: a model-like answer every 2 s (server-sent events from /completions; one in three cut mid-way and resumed with Last-Event-ID) and a WebSocket price feed every 3 s (/ticker; one in three closed by the server).")
    var streams = false

    @Flag(help: "Record without the terminal UI (for scripts).")
    var headless = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --headless: how many seconds to run, 0.001 to 86400 (default: 10).", valueName: "SECONDS"),
        transform: DurationArgument.seconds)
    var duration = DurationArgument(seconds: 10)

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The API's port on 127.0.0.1, 0 to 65535 (default: 0, which picks a free one).", valueName: "N"),
        transform: PortArgument.parse)
    var port: PortArgument = 0

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Concurrent callers in the traffic scenario, 1 to 256 (default: 3).", valueName: "N"),
        transform: CountArgument.parser(in: 1...256))
    var workers: CountArgument = 3

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Pause between one caller's requests, 0 to 60000 milliseconds (default: 250; 0 for as fast as possible).",
        valueName: "MS"), transform: CountArgument.parser(in: 0...60_000, unit: "milliseconds"))
    var pause: CountArgument = 250

    @Option(help: ArgumentHelp("Also stream the traffic to a listener (`loupe listen` and `loupe tui --listen` print the link; default: $LOUPE_LINK; on a shared machine prefer LOUPE_LINK, which `ps` does not show).",
                               valueName: "LINK"), transform: LinkOption.parse)
    var link: LinkAddress?

    @Option(name: .customLong("link-buffer"), parsing: .unconditional, help: ArgumentHelp(
        "With a link: the most megabytes (MiB) of exchanges waiting for the viewer; the oldest are dropped past it (default 16).",
        valueName: "MB"), transform: { try ByteSizeArgument.megabytes($0) })
    var linkBuffer: ByteSizeArgument?

    @Option(help: ArgumentHelp("Also send spans live to this OpenTelemetry collector's OTLP/HTTP traces endpoint.",
                               valueName: "URL"))
    var otlp: String?

    func run() async throws {
        // A mistake in keys.toml is reported before anything starts.
        let keymap = headless ? Keymap.standard : try TUICommand.keymap()
        let endpoint = try otlp.map { try OTLPOption.endpoint($0) }
        // The API first: a port in use is refused before a store is created for nothing.
        let server: FlakyAPI.RunningServer
        do {
            server = try await FlakyAPI.start(port: port.value, accessLog: ProcessInfo.processInfo.environment["LOUPE_DEMO_API_LOG"])
        } catch {
            throw Self.startFailure(error, port: port.value)
        }
        // The gRPC service beside it, on a free port (only the HTTP API's port is the user's to choose).
        let grpcServer: DemoGRPCServer
        do {
            grpcServer = try await DemoGRPCServer.start()
        } catch {
            await server.stop()
            throw CommandFailure.badInput("cannot start the demo's gRPC service on 127.0.0.1: \(error)")
        }
        let storeArgument = store ?? defaultDemoStore()
        let store: SQLiteTraceStore, path: String
        let link: LoupeLink?
        // Rules act only in an app that opted in: a link or a rules file ($LOUPE_RULES).
        let environment = ProcessInfo.processInfo.environment
        let rules = RuleBook.forApp(linkConfigured: self.link != nil || !(environment[LinkAddress.environmentVariable] ?? "").isEmpty)
        defer { rules?.file?.stop() }
        do {
            (store, path) = try StoreAccess.openForWriting(storeArgument)
            link = try LinkOption.start(self.link, appName: "loupe demo", bufferBytes: linkBuffer?.bytes, rules: rules?.book)
        } catch {
            await server.stop()
            await grpcServer.stop()
            throw error
        }
        defer { StoreAccess.reportPrunes(store, path: path) }  // what keeping the store within its bounds removed
        let exporter = endpoint.map { OTLPExporter(endpoint: $0) }
        let inspector = NetworkTraceInspector(store: store, configuration: .init(forwarders: [link, exporter]))
        let breakers = DemoClient.breakerRegistry()
        rules?.book.attach(breakers: breakers)
        let client = DemoClient.make(
            baseURL: server.baseURL, observer: inspector,
            transport: rules.map { RulesTransport(wrapping: AsyncHTTPClientTransport(), book: $0.book) }, breakers: breakers)
        let traffic = DemoTraffic(client: client, workers: workers.value, pause: .milliseconds(pause.value),
                                  completionInterval: streams ? .seconds(2) : nil,
                                  tickerInterval: streams ? .seconds(3) : nil,
                                  webSocketTransport: streams ? NIOWebSocketTransport() : nil,
                                  grpc: try DemoGRPCCalls(port: grpcServer.port, observer: inspector))
        if headless {
            StandardStreams.error("loupe demo: API on \(server.baseURL), gRPC on 127.0.0.1:\(grpcServer.port), recording into \(path) for \(duration) s\n")
            let sent = await traffic.run(until: .now + duration.duration)
            await inspector.shutdown()
            await server.stop()
            await grpcServer.stop()
            RecorderReport.warnIfLost(inspector, path: path)
            LinkOption.report(link)
            OTLPOption.report(exporter, endpoint: endpoint)
            // What reached the store, not what was sent: a full disk must not read as a complete recording.
            print("recorded \(inspector.writtenCount) of \(sent) exchanges into \(path)")
            return
        }
        let trafficTask = Task { await traffic.run() }
        let app = TUIApp(store: store, storeName: path, replayer: StoreReplayer(inspector: inspector),
                               keymap: keymap, history: FilePromptHistory(),
                               // The demo's streams are live rows while they run (stored only once they end).
                               openStreams: { inspector.openStreams })
        let result = await Result(catching: { try await TUIRunner.run(app) })
        trafficTask.cancel()
        _ = await trafficTask.value
        await inspector.shutdown()
        await server.stop()
        await grpcServer.stop()
        RecorderReport.warnIfLost(inspector, path: path)
        LinkOption.report(link)
        OTLPOption.report(exporter, endpoint: endpoint)
        try result.get()
        print("recorded into \(path); inspect again with `loupe tui \(path)`")
    }

    /// `port N is in use` for the common case, the server's own reason otherwise.
    static func startFailure(_ error: any Error, port: Int) -> CommandFailure {
        if BindFailure.isAddressInUse(error) {
            return CommandFailure.badInput("port \(port) is in use")
        }
        return CommandFailure.badInput("cannot start the demo API on 127.0.0.1:\(port): \(error)")
    }

    func defaultDemoStore() -> String {
        let standard = StoreLocation.defaultPath(environment: ProcessInfo.processInfo.environment)
        return (standard as NSString).deletingLastPathComponent + "/demo.sqlite"
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
