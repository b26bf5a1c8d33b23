import ArgumentParser
import Foundation
import Loupe
import LoupeLink
import LoupeQuery
import LoupeReplay
import LoupeRules
import LoupeRulesFile
import LoupeServe
import LoupeTrace

/// The options of a server serving recordings, read the same way by `loupe serve` and `loupe tui --serve`: where it
/// listens, how it matches, what follows a used-up sequence, where misses go, TLS and pacing.
///
/// The recordings' selection is not here: `serve` calls it `--filter`, and `tui` already uses that name for the
/// list's filter, so it says `--serve-filter`.
struct ServeFlags: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("The port to listen on, 0 to 65535 (0 picks a free one; default: 8080).", valueName: "P"),
            transform: PortArgument.parse)
    var port: PortArgument?

    @Option(name: .customLong("host"), help: ArgumentHelp("The address to listen on (default: 127.0.0.1, this machine only).", valueName: "H"))
    var hostOption: String?

    @Option(help: "Leave this part of a JSON request body out of matching (a JSON path such as $.requestId, or body; repeatable).")
    var ignore: [String] = []

    @Option(name: .customLong("match-header"), help: ArgumentHelp("Also match this request header's values (repeatable).", valueName: "NAME"))
    var matchHeaders: [String] = []

    @Option(name: .customLong("repeat"), help: ArgumentHelp("After a request's recordings have all been served: last, cycle or miss (default: last).",
                                                             valueName: "last|cycle|miss"))
    var repeatPolicy: String?

    @Option(help: ArgumentHelp("Send misses to this server (scheme://host[:port]) and record and serve its answers.", valueName: "URL"))
    var passthrough: String?

    @Flag(help: "Serve HTTPS with a self-signed certificate (made on first use in $XDG_STATE_HOME/loupe/serve), printed by fingerprint.")
    var tls = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Wait the recorded time to first byte and transfer: recorded, or scaled by a factor from 0.01 to 100 (0.5 is twice as fast).",
        valueName: "recorded|FACTOR"), transform: ServeFlags.parsePace)
    var pace: Double?

    /// The port asked for (8080 unless `--port` says otherwise).
    var portValue: Int { port?.value ?? 8080 }

    var host: String { hostOption ?? "127.0.0.1" }

    /// The options given on the command line, by name (`tui` refuses them without `--serve`).
    var given: [String] {
        var names: [String] = []
        if port != nil { names.append("--port") }
        if hostOption != nil { names.append("--host") }
        if !ignore.isEmpty { names.append("--ignore") }
        if !matchHeaders.isEmpty { names.append("--match-header") }
        if repeatPolicy != nil { names.append("--repeat") }
        if passthrough != nil { names.append("--passthrough") }
        if tls { names.append("--tls") }
        if pace != nil { names.append("--pace") }
        return names
    }

    /// `recorded` is 1; a factor is range-checked once here.
    static func parsePace(_ text: String) throws(ArgumentValueError) -> Double {
        text == "recorded" ? 1 : try NumberArgument.decimal(text, in: 0.01...100, expected: "recorded or a factor from 0.01 to 100")
    }

    func validate() throws {
        _ = try ignorePatterns()
        _ = try repeatValue()
        _ = try passthroughURL()
        for name in matchHeaders where name.isEmpty || name.contains(where: { $0 == ":" || $0.isWhitespace }) {
            throw ValidationError("--match-header takes a header name: '\(TerminalText.line(name))'")
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ValidationError("--host takes an address or host name: '\(TerminalText.line(host))'")
        }
    }

    func ignorePatterns() throws -> [DiffPattern] {
        do {
            return try ignore.map { text throws(DiffPatternError) in try DiffPattern(text) }
        } catch {
            throw ValidationError("--ignore \(error)")
        }
    }

    func repeatValue() throws -> ServeRepeat {
        guard let repeatPolicy else { return .last }
        guard let value = ServeRepeat(rawValue: repeatPolicy) else {
            throw ValidationError("--repeat takes last, cycle or miss, not '\(TerminalText.line(repeatPolicy))'")
        }
        return value
    }

    func passthroughURL() throws -> URL? {
        guard let passthrough else { return nil }
        guard let url = URL(string: passthrough), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil else {
            throw ValidationError("--passthrough takes an absolute http(s) URL: '\(TerminalText.line(passthrough))'")
        }
        if let problem = PortArgument.problem(in: url) { throw ValidationError("--passthrough: \(problem)") }
        return url
    }

    /// A server started with these options.
    struct Running {
        let server: ServeServer
        let options: ServeOptions
        let identity: LinkIdentity?
        /// The `LOUPE_RULES` file the answers pass through, watched for changes.
        let rulesFile: RulesFile?

        /// Stops the server (its port closed, what it served written) and the rules file's watch.
        func stop() async {
            await server.stop()
            rulesFile?.stop()
        }
    }

    /// Starts serving `library` with these options, recording into `store` when given; `log` gets one line per
    /// request. A port in use or an address that cannot be bound is one `loupe:` line (exit 2).
    func start(library: ServeLibrary, redaction: RedactionPolicy, store: (any TraceStoreWriting)?,
               log: @escaping @Sendable (String) -> Void) async throws -> Running {
        var options = ServeOptions(
            matching: ServeMatching(ignore: try ignorePatterns(), headers: matchHeaders), repeatPolicy: try repeatValue(),
            passthrough: try passthroughURL(), redaction: redaction, pace: pace)
        // The rules of `LOUPE_RULES`, read now and again whenever the file changes, act on every answer.
        let rules = RuleBook.forApp(linkConfigured: false, redaction: redaction)
        options.rules = rules.map { ServeRules(book: $0.book) }
        options.store = store
        var identity: LinkIdentity?
        if tls {
            let folder = XDGDirectories.join(XDGDirectories.join(XDGDirectories.stateHome(environment: ProcessInfo.processInfo.environment), "loupe"), "serve")
            do {
                identity = try LinkIdentity.loadOrCreate(in: folder)
            } catch {
                rules?.file?.stop()
                throw CommandFailure.badInput("--tls: \(error)")
            }
        }
        do {
            let server = try await ServeServer.start(library: library, options: options, host: host, port: portValue, tls: identity, log: log)
            return Running(server: server, options: options, identity: identity, rulesFile: rules?.file)
        } catch {
            rules?.file?.stop()
            if BindFailure.isAddressInUse(error) { throw CommandFailure.badInput("port \(portValue) is in use (--port picks another; 0 picks a free one)") }
            throw CommandFailure.badInput("cannot listen on \(TerminalText.line(host)):\(portValue): \(error)")
        }
    }
}
