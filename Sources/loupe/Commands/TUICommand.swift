import ArgumentParser
import Foundation
import LoupeApproval
import LoupeContract
import LoupeLink
import LoupeProtobuf
import LoupeTUI
import LoupeTrace
import Synchronization

/// `loupe tui [STORE]`: the live TUI, on a store opened read-only.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tui", abstract: "Open the TUI on a trace store.")

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store). Viewed read-only; created empty if missing, so recordings started later appear live.")
    var store: String?

    @Option(help: "Start with this filter (the `loupe list --filter` language); f changes it.")
    var filter: String?

    @Option(help: ArgumentHelp(
        "Check each exchange against this OpenAPI 3.0/3.1 document (YAML or JSON; default: $LOUPE_OPENAPI): drifting rows are marked ≠, the detail has a Contract tab, and ~drift filters.",
        valueName: "FILE"))
    var openapi: String?

    @Flag(help: "Leave the mouse to the terminal (no click, double-click or wheel handling).")
    var noMouse = false

    @Option(help: ArgumentHelp(
        "Also listen for linked apps on PORT, ADDR:PORT or [IPv6]:PORT (127.0.0.1 unless an address is given) and show their traffic; prints the link first.",
        valueName: "[ADDR:]PORT"), transform: ListenOption.parse)
    var listen: ListenAddress?

    @Option(name: .customLong("store"), help: "With --listen or --serve: the store linked or served exchanges are written into; the same as naming STORE, so give one or the other.")
    var listenStore: String?

    @Flag(help: "With --listen: plain TCP instead of TLS, on a loopback address only (loupe+tcp://…).")
    var insecureLoopback = false

    @OptionGroup var descriptorSet: DescriptorSetOption

    @Option(help: ArgumentHelp(
        "Also serve this store, HAR file or cassette as `loupe serve` does, recording every request served into the TUI's store (~served); Z starts the sequences over.",
        valueName: "SOURCE"))
    var serve: String?

    @Option(name: .customLong("serve-filter"), help: ArgumentHelp("With --serve: serve only the recordings matching EXPR (serve's --filter).", valueName: "EXPR"))
    var serveFilter: String?

    @OptionGroup(title: "Serving (with --serve; see `loupe serve --help`)") var serving: ServeFlags

    func validate() throws {
        if let first = serving.given.first ?? (serveFilter != nil ? "--serve-filter" : nil), serve == nil {
            throw ValidationError("\(first) goes with --serve")
        }
        if serve != nil && listen != nil { throw ValidationError("--serve and --listen are one or the other") }
        if listenStore != nil && listen == nil && serve == nil { throw ValidationError("--store goes with --listen or --serve (otherwise name the STORE)") }
        if listenStore != nil && store != nil { throw ValidationError("name the store once: STORE or --store") }
        if insecureLoopback && listen == nil { throw ValidationError("--insecure-loopback goes with --listen") }
    }

    func run() async throws {
        let contract = try Self.contract(openapi ?? ProcessInfo.processInfo.environment["LOUPE_OPENAPI"])
        let filter = try FilterOption.parse(self.filter, withContract: contract != nil)
        let keymap = try Self.keymap()
        let messageTypes = try descriptorSet.load()
        if let listen { return try await runListening(listen, filter: filter, keymap: keymap, contract: contract, messageTypes: messageTypes) }
        if let serve { return try await runServing(serve, filter: filter, keymap: keymap, contract: contract, messageTypes: messageTypes) }
        // Looking never writes: the store is read-only, and a writer opens only when a replay is recorded.
        let (store, path) = try StoreAccess.openForViewing(store)
        let replayer = StoreReplayer(path: path)
        let app = TUIApp(store: store, storeName: path, replayer: replayer, filter: filter, keymap: keymap,
                               history: FilePromptHistory(), contract: contract, messageTypes: messageTypes,
                               agents: AgentQueue(storePath: path))
        let result = await Result(catching: { try await TUIRunner.run(app, mouse: !noMouse) })
        await replayer.shutdown()
        try result.get()
    }

    /// `--listen`: the store is written by the listener inside this process, and the TUI shows it live.
    private func runListening(_ address: ListenAddress, filter: TraceFilter?, keymap: Keymap,
                              contract: ContractChecks?, messageTypes: ProtobufDescriptorSet?) async throws {
        let (store, path) = try StoreAccess.openForWriting(listenStore ?? store)
        // The link is the one thing printed before the screen takes over, and again after it.
        let wakeup = StoreWakeup()
        // The screen covers standard error: refusals are kept for the status line instead of printed.
        let lastRefusal = Mutex<String?>(nil)
        let listener = try await ListenOption.start(at: address, store: store, insecureLoopback: insecureLoopback,
                                                    onStored: { _ in wakeup?.signal() }) { event in
            if case .refused(let line) = event { lastRefusal.withLock { $0 = line } }
        }
        StandardStreams.error("\(LinkAddress.environmentVariable)=\(listener.link)\n")
        let replayer = StoreReplayer(path: path)
        let app = TUIApp(store: store, storeName: path, replayer: replayer, filter: filter, keymap: keymap,
                               history: FilePromptHistory(), rules: ListenerRules(listener), contract: contract,
                               messageTypes: messageTypes, agents: AgentQueue(storePath: path))
        app.sourceStatus = { listener.sources.map(Self.status) }
        let link = "\(LinkAddress.environmentVariable)=\(listener.link)"
        app.listenerStatus = {
            ListenerStatus(link: link, refused: listener.counts.refused, lastRefusal: lastRefusal.withLock { $0 })
        }
        app.wakeup = wakeup
        let result = await Result(catching: { try await TUIRunner.run(app, mouse: !noMouse) })
        await listener.stop()
        await replayer.shutdown()
        print("\(LinkAddress.environmentVariable)=\(listener.link)")
        print(ListenOption.summary(listener.counts))
        try result.get()
    }

    /// `--serve`: the server runs inside this process and records what it serves into the store the TUI shows.
    private func runServing(_ source: String, filter: TraceFilter?, keymap: Keymap,
                            contract: ContractChecks?, messageTypes: ProtobufDescriptorSet?) async throws {
        let (store, path) = try StoreAccess.openForWriting(listenStore ?? store)
        let serving = try await ServingTUI.start(source, filter: serveFilter, flags: self.serving, store: store, storePath: path)
        // Printed before the screen takes over and again after it, as `loupe serve` prints it.
        StandardStreams.error(serving.status.summary + "\n")
        let replayer = StoreReplayer(path: path)
        let app = TUIApp(store: store, storeName: path, replayer: replayer, filter: filter, keymap: keymap,
                         history: FilePromptHistory(), contract: contract, messageTypes: messageTypes)
        serving.attach(to: app)
        let result = await Result(catching: { try await TUIRunner.run(app, mouse: !noMouse) })
        await serving.stop()
        await replayer.shutdown()
        print(serving.status.summary)
        print(serving.stoppedLine)
        try result.get()
    }

    /// The OpenAPI document's checks, or nil when none is named; an unreadable document is one line and exit 2.
    static func contract(_ path: String?) throws -> ContractChecks? {
        guard let path, !path.isEmpty else { return nil }
        return ContractChecks(contract: try CheckCommand.contract(path))
    }

    /// A listener's source as the title bar shows it.
    static func status(_ source: LinkListener.Source) -> SourceStatus {
        SourceStatus(app: source.app.app, state: source.goneSince.map { .gone(since: $0) } ?? .linked,
                     dropped: source.dropped)
    }

    /// The standard keys with the user's keys.toml applied; a mistake in the file is one line and exit 2.
    static func keymap(path: String = KeysFile.defaultPath(),
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Keymap {
        let overrides = try KeysFile.load(path: path, environment: environment)
        do {
            return try Keymap.standard.applying(overrides)
        } catch {
            throw CommandFailure.badInput("\(KeysFile.displayPath(path, environment: environment)): \(error)")
        }
    }
}
