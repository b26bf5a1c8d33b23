import ArgumentParser
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeQuery
import LoupeTrace
import LoupeReplay
import LoupeWebSocket

/// `loupe replay [STORE | FILE.har] (--id ID | --filter EXPR) …`: sends recorded requests again, each recorded as a
/// new exchange marked as a replay of its original, and optionally compares the answers with the recorded ones.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay", abstract: "Send recorded requests again, record them as replays, and compare the answers.",
        discussion: """
            Each replay is a new exchange linked to its original (list them with --filter '~replay'); nothing is \
            overwritten. Replays from a HAR file, or recorded into another store with --store, bring their originals \
            along so the link resolves. POST, PATCH and other methods that are not safe to repeat ask first on a \
            terminal; elsewhere they need --yes.

            --diff compares status, headers (Date, request ids, trace context and other volatile ones left out) and \
            bodies (JSON by structure, text by lines); a gRPC call's response message field by field (by name with \
            --descriptor-set, else by field number: $['1']['2']). --ignore takes a JSON path ($.meta.generatedAt, \
            $.items[*].id, $..requestId), header:NAME (with * globs), status or body; --noise-runs K sends each \
            request K more times and leaves out, as noise, what changes between those identical requests.

            Exit status: 0 when every replay answered (below 400, or as recorded with --diff); 1 when one failed or \
            differs; 2 on bad input.
            """)

    @Argument(help: ArgumentHelp("The trace store or HAR file to replay from (default: $LOUPE_STORE or the XDG state store).",
                                 valueName: "STORE|FILE.har"))
    var source: String?

    @Option(help: "The exchange to replay: its id, a unique id prefix, or #sequence (#N is the Nth entry of a HAR file).")
    var id: String?

    @Option(help: "Replay every exchange matching EXPR (at most 10000), oldest first; see `loupe list --help`.")
    var filter: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Send each request N times, 1 to 100000 (default: 1).", valueName: "N"),
            transform: CountArgument.parser(in: 1...100_000))
    var times: CountArgument = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("At most C requests in flight, 1 to 256 (default: 1).", valueName: "C"),
            transform: CountArgument.parser(in: 1...256))
    var concurrency: CountArgument = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Start at most R requests per second, 0.01 to 100000.", valueName: "R"),
            transform: RateArgument.parse)
    var rate: RateArgument?

    @Option(name: .customLong("base-url"), help: "Send to this scheme://host[:port] instead; the recorded path and query are kept.")
    var baseURL: String?

    @Option(name: [.customShort("H"), .customLong("header")],
            help: "Set a request header, 'Name: value', replacing recorded ones of that name (repeatable).",
            transform: HeaderArgument.parse)
    var headers: [HeaderArgument] = []

    @Flag(help: "Send through the bare client: no middleware (only --timeout and --pin-cert apply).")
    var raw = false

    @Flag(help: "Compare each replay's response with the recorded one (a stream's: the server's messages).")
    var diff = false

    @Flag(help: "Send a recorded WebSocket's client messages one after another, not at their recorded offsets.")
    var fast = false

    @Option(help: "With --diff: leave out this part (a JSON path, header:NAME, status or body; repeatable).")
    var ignore: [String] = []

    @Option(name: .customLong("noise-runs"), parsing: .unconditional, help: ArgumentHelp(
        "With --diff: send each request K more times and leave out what changes between them, 1 to 20.", valueName: "K"),
        transform: CountArgument.parser(in: 1...20))
    var noiseRuns: CountArgument?

    @Option(help: "The store to record the replays into (default: the source store; for a HAR file, the default store).")
    var store: String?

    @Flag(help: "Replay requests that are not safe to repeat (POST, PATCH…) without asking.")
    var yes = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup(title: "Redaction") var redaction: RedactionFlags

    @OptionGroup(title: "Resilience (not with --raw)") var resilience: ResilienceFlags

    /// With --diff, gRPC messages compared by field name.
    @OptionGroup var descriptorSet: DescriptorSetOption

    func validate() throws {
        try resilience.validate()
        if (id == nil) == (filter == nil) { throw ValidationError("give --id ID or --filter EXPR (one of them)") }
        if !diff, !ignore.isEmpty || noiseRuns != nil { throw ValidationError("--ignore and --noise-runs need --diff") }
        if raw, resilience.makesMiddleware {
            throw ValidationError("--raw sends without middleware: it cannot take --retries, --deadline, --bearer, --basic or --breaker")
        }
        _ = try ignorePatterns()
        _ = try targetURL()
    }

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let source = try ReplaySource.open(self.source, redaction: redaction.policy)
        let plan = try makePlan(source.select(id: id, filter: filter))
        if let warning = ReplayConfirmation.redactedWarning(
            plan.originals, supplied: Set(plan.headers.map { $0.name.canonicalName })
                .union(resilience.bearer != nil || resilience.basic != nil ? ["authorization"] : []),
            suppliedQuery: Set(plan.queryValues.keys)) {
            StandardStreams.error(warning + "\n")
        }
        if let note = Self.adapterNote(plan.originals) { StandardStreams.error(note + "\n") }
        try ReplayConfirmation.check(plan.originals, times: plan.times, yes: yes, interactive: isatty(STDIN_FILENO) == 1,
                                     ask: ReplayConfirmation.askTerminal)
        if plan.originals.contains(where: { $0.stream?.kind == .grpc }) { return try await replayGRPC(plan, source: source) }
        let transport = try resilience.makeTransport()
        let (destination, destinationPath) = try StoreAccess.openForWriting(store ?? (source.isHAR ? nil : source.path))
        defer { StoreAccess.reportPrunes(destination, path: destinationPath) }
        try Self.bringOriginals(plan.originals, into: destination, path: destinationPath, unlessSameAs: source)
        let inspector = NetworkTraceInspector(store: destination, configuration: .init(redaction: redaction.policy))
        let client = Client(
            baseURL: plan.baseURL ?? URL(string: plan.originals[0].url) ?? URL(fileURLWithPath: "/"), transport: transport,
            middlewares: raw ? [] : resilience.makeMiddlewares(), observer: inspector)
        let showProgress = isatty(STDERR_FILENO) == 1
        let session = Task {
            await ReplaySession.run(plan, client: client, recorder: inspector, store: destination,
                                    webSocketTransport: NIOWebSocketTransport(), showProgress: showProgress)
        }
        let interrupt = ReplayInterrupt { session.cancel() }
        let result = await session.value
        interrupt.cancel()
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: destinationPath)
        try? await transport.shutdown()
        let report = ReplayReport(plan: plan, result: result)
        // Written and checked now: a report that cannot be written is the command's failure (exit 2, as
        // all output), said in its own line even when the replay failed too; `print` would hold it until after exit 1.
        let text = json ? try Formatting.json(ReplayReportJSON(report)) : report.text.joined(separator: "\n")
        try StandardStreams.output(Data((text + "\n").utf8))
        if !report.succeeded { throw ExitCode(1) }
    }

    /// Recorded unary gRPC calls sent again through grpc-swift (``GRPCReplayer``), one after another, each `times`
    /// times: a line each, exit 1 when one did not end `OK`. The HTTP-only options are refused.
    private func replayGRPC(_ plan: ReplayPlan, source: ReplaySource) async throws {
        guard plan.originals.allSatisfy({ $0.stream?.kind == .grpc }) else {
            throw CommandFailure.badInput("replay gRPC calls on their own (add ~grpc to the filter, or !~grpc for the rest)")
        }
        if baseURL != nil || raw || resilience.makesMiddleware || plan.concurrency > 1 || plan.rate != nil || plan.noiseRuns > 0 {
            throw CommandFailure.badInput("a gRPC replay takes --times, --store, -H, --yes, --diff, --ignore and --descriptor-set only (--base-url, --raw, --concurrency, --rate, --noise-runs and resilience flags are HTTP's)")
        }
        let messageTypes = try descriptorSet.load()
        let (destination, destinationPath) = try StoreAccess.openForWriting(store ?? (source.isHAR ? nil : source.path))
        defer { StoreAccess.reportPrunes(destination, path: destinationPath) }
        try Self.bringOriginals(plan.originals, into: destination, path: destinationPath, unlessSameAs: source)
        let inspector = NetworkTraceInspector(store: destination, configuration: .init(redaction: redaction.policy))
        var lines: [String] = []
        var failed = false
        var outcomes: [ReplayOutcome] = []
        let environment = ProcessInfo.processInfo.environment
        let run = Task {
            for original in plan.originals {
                let credentials = ReplayCredentials.supplied(for: original, environment: environment)
                    + plan.headers.map { (name: $0.name.canonicalName, value: $0.value) }
                for _ in 0..<plan.times where !Task.isCancelled {
                    let (line, succeeded, code, duration, replayID) = try await GRPCReplayer.replay(
                        original, observer: inspector, credentials: credentials)
                    lines.append(line)
                    failed = failed || !succeeded
                    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                    outcomes.append(ReplayOutcome(originalID: original.id, replayID: replayID,
                                                  status: code == 0 ? 200 : nil, duration: seconds))
                }
            }
            return (lines, failed, outcomes)
        }
        let interrupt = ReplayInterrupt { run.cancel() }
        let result = await run.result
        interrupt.cancel()
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: destinationPath)
        var (done, anyFailed, replayed) = try result.get()
        if plan.diff {
            // As HTTP's --diff: the replays read back from the store, compared with their originals, and the exit
            // status says whether they answered as recorded rather than whether they answered OK.
            let originals = Dictionary(plan.originals.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let comparisons = ReplayComparison.compare(
                originals: originals, outcomes: replayed, ignore: plan.ignore, messageTypes: messageTypes,
                lookup: { try destination.exchange(id: $0) })
            done += ReplayDiffText(plan: plan, comparisons: comparisons).lines
            anyFailed = comparisons.contains { $0.problem != nil || $0.diff?.isSame == false }
        }
        try StandardStreams.output(Data((done.joined(separator: "\n") + "\n").utf8))
        if anyFailed { throw ExitCode(1) }
    }

    /// Exchanges an adapter recorded (an app's own networking stack, issue 31) are resent by Loupe's client: said
    /// once, naming the adapters, so a difference in how the request goes out is not a surprise.
    static func adapterNote(_ originals: [TraceExchange]) -> String? {
        let adapters = Set(originals.compactMap { exchange in
            exchange.events.first { $0.kind == .adapter }?.attributes["adapter"]
        })
        guard !adapters.isEmpty else { return nil }
        let count = originals.filter { $0.events.contains { $0.kind == .adapter } }.count
        return "loupe replay: \(Quantity.count(count, "exchange")) recorded by the \(adapters.sorted().joined(separator: ", ")) "
            + "adapter \(count == 1 ? "is" : "are") resent through Loupe's client, not the app's own networking stack"
    }

    func makePlan(_ originals: [TraceExchange],
                  environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ReplayPlan {
        var plan = ReplayPlan(originals: originals)
        plan.times = times.value
        plan.noiseRuns = noiseRuns?.value ?? 0
        plan.concurrency = concurrency.value
        plan.rate = rate?.perSecond
        plan.baseURL = try targetURL()
        plan.headers = HeaderArgument.fields(headers)
        for original in originals {
            plan.queryValues.merge(ReplayCredentials.suppliedQuery(for: original, environment: environment)) { first, _ in first }
        }
        plan.timeout = resilience.attemptTimeout
        plan.diff = diff
        plan.ignore = try ignorePatterns()
        plan.pacing = fast ? .fast : .recorded
        guard plan.requestCount <= ReplayPlan.maximumRequests else {
            throw CommandFailure.badInput("\(Quantity.count(originals.count, "exchange")) × \(plan.times + plan.noiseRuns) is more than \(ReplayPlan.maximumRequests) requests; lower --times or narrow the filter")
        }
        return plan
    }

    func ignorePatterns() throws -> [DiffPattern] {
        do {
            return try ignore.map { text throws(DiffPatternError) in try DiffPattern(text) }
        } catch {
            throw ValidationError("--ignore \(error)")
        }
    }

    /// `--base-url` as scheme://host[:port]; a path other than `/`, a query or credentials are refused, since
    /// the recorded path and query are the ones sent.
    func targetURL() throws -> URL? {
        guard let baseURL else { return nil }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw ValidationError(redaction.policy.redact(text: "--base-url: '\(baseURL)' is not an absolute http(s) URL", about: baseURL))
        }
        if let problem = PortArgument.problem(in: url) {
            throw ValidationError(redaction.policy.redact(text: "--base-url: '\(baseURL)': \(problem)", about: baseURL))
        }
        guard ["", "/"].contains(url.path), url.query == nil, url.fragment == nil, url.user == nil, url.password == nil else {
            throw ValidationError(redaction.policy.redact(
                text: "--base-url takes scheme://host[:port] only (the recorded path and query are kept): '\(baseURL)'", about: baseURL))
        }
        return url
    }

    /// Writes the originals the destination lacks (by id), in one transaction, so each replay's link to its
    /// original resolves there (`d` in the TUI, `~replay`). Nothing already stored is rewritten.
    static func bringOriginals(_ originals: [TraceExchange], into destination: SQLiteTraceStore, path: String,
                               unlessSameAs source: ReplaySource) throws {
        if !source.isHAR, samePath(source.path, path) { return }
        do {
            let missing = try originals.filter { try destination.exchange(id: $0.id) == nil }
            try destination.write(missing)
        } catch {
            throw CommandFailure.badInput("cannot copy the originals into \(path): \(error)")
        }
    }

    static func samePath(_ first: String, _ second: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        return resolved(first) == resolved(second)
    }
}

extension ResilienceFlags {
    /// Whether these flags add middleware (everything except `--timeout` and `--pin-cert`, which act per attempt
    /// and on the transport).
    var makesMiddleware: Bool { !makeMiddlewares().isEmpty || bearer != nil || basic != nil || breaker }
}
