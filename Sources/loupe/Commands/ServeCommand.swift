import ArgumentParser
import Foundation
import Loupe
import LoupeFormats
import LoupeLink
import LoupeQuery
import LoupeReplay
import LoupeRules
import LoupeRulesFile
import LoupeServe
import LoupeTrace

/// `loupe serve SOURCE [--port P] [--host H] …`: a store, HAR file or cassette served back as a mock server that any
/// client can call; misses never leave the process unless `--passthrough` names a server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Answer HTTP requests with the recorded responses that match them.",
        discussion: """
            A request is matched, in this order, by method, path, query (items in any order), body (JSON by value, \
            --ignore paths left out) and the --match-header headers. Identical requests recorded several times are \
            answered in recorded order; after the last, --repeat decides (last: the last again; cycle: from the \
            first; miss: a 404). POST /__loupe/reset starts every sequence over.

            A request nothing matches gets a 404 whose body names the closest recording and why it did not match; \
            it is never sent anywhere unless --passthrough URL is given, and then its answer is recorded and served \
            from then on. One line is printed per request; --store records every request marked served (~served).
            See Documentation/Serve.md.
            """)

    @Argument(help: ArgumentHelp("The trace store, HAR file or cassette to serve (default: $LOUPE_STORE or the XDG state store).",
                                 valueName: "STORE|FILE.har"))
    var source: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The port to listen on, 0 to 65535 (0 picks a free one; default: 8080).", valueName: "P"),
            transform: PortArgument.parse)
    var port: PortArgument = 8080

    @Option(name: .customLong("host"), help: ArgumentHelp("The address to listen on (default: 127.0.0.1, this machine only).", valueName: "H"))
    var hostOption: String?

    var host: String { hostOption ?? "127.0.0.1" }

    @Option(help: "Serve only the recordings matching EXPR; see `loupe list --help`.")
    var filter: String?

    @Option(help: "Leave this part of a JSON request body out of matching (a JSON path such as $.requestId, or body; repeatable).")
    var ignore: [String] = []

    @Option(name: .customLong("match-header"), help: ArgumentHelp("Also match this request header's values (repeatable).", valueName: "NAME"))
    var matchHeaders: [String] = []

    @Option(name: .customLong("repeat"), help: ArgumentHelp("After a request's recordings have all been served: last, cycle or miss (default: last).",
                                                             valueName: "last|cycle|miss"))
    var repeatPolicy: String = "last"

    @Option(help: ArgumentHelp("Send misses to this server (scheme://host[:port]) and record and serve its answers.", valueName: "URL"))
    var passthrough: String?

    @Option(help: "Record every request served (and every miss) into this store, marked served (~served).")
    var store: String?

    @Flag(help: "Serve HTTPS with a self-signed certificate (made on first use in $XDG_STATE_HOME/loupe/serve), printed by fingerprint.")
    var tls = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Wait the recorded time to first byte and transfer: recorded, or scaled by a factor from 0.01 to 100 (0.5 is twice as fast).",
        valueName: "recorded|FACTOR"), transform: ServeCommand.parsePace)
    var pace: Double?

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

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let redaction = RedactionPolicy()
        let (library, sourcePath, spool) = try Self.open(source, redaction: redaction, filter: filter, keptHeaders: matchHeaders)
        defer { spool?.remove() }
        var options = ServeOptions(
            matching: ServeMatching(ignore: try ignorePatterns(), headers: matchHeaders), repeatPolicy: try repeatValue(),
            passthrough: try passthroughURL(), redaction: redaction, pace: pace)
        // The rules of `LOUPE_RULES`, read now and again whenever the file changes, act on every answer.
        let rules = RuleBook.forApp(linkConfigured: false, redaction: redaction)
        options.rules = rules.map { ServeRules(book: $0.book) }
        var destinationPath: String?
        if let store {
            let (destination, path) = try StoreAccess.openForWriting(store)
            options.store = destination
            destinationPath = path
        }
        var identity: LinkIdentity?
        if tls {
            let folder = XDGDirectories.join(XDGDirectories.join(XDGDirectories.stateHome(environment: ProcessInfo.processInfo.environment), "loupe"), "serve")
            do {
                identity = try LinkIdentity.loadOrCreate(in: folder)
            } catch {
                throw CommandFailure.badInput("--tls: \(error)")
            }
        }
        let server: ServeServer
        do {
            server = try await ServeServer.start(library: library, options: options, host: host, port: port.value, tls: identity) { line in
                print(line)
                try? StandardStreams.flushOutput()
            }
        } catch {
            if BindFailure.isAddressInUse(error) { throw CommandFailure.badInput("port \(port.value) is in use (--port picks another; 0 picks a free one)") }
            throw CommandFailure.badInput("cannot listen on \(TerminalText.line(host)):\(port.value): \(error)")
        }
        print(Self.startLine(count: library.requests.count, source: sourcePath, host: host, port: server.port,
                             passthrough: options.passthrough, store: destinationPath, tls: identity != nil))
        if let identity { print("loupe serve: TLS certificate fp=sha256:\(identity.fingerprint.hex) (self-signed, in \(identity.folder))") }
        if let file = rules?.file { print("loupe serve: answers pass through the rules of \(TerminalText.line(file.path))") }
        try? StandardStreams.flushOutput()
        await StopSignals.wait()
        await server.stop()
        if server.droppedRecordings > 0, let destinationPath {
            StandardStreams.error("loupe: \(Quantity.count(server.droppedRecordings, "served exchange")) not recorded into \(TerminalText.line(destinationPath)): the store fell behind\n")
        }
        rules?.file?.stop()
    }

    /// What the server says when it starts: how much it serves, where, and what happens to a miss.
    static func startLine(count: Int, source: String, host: String, port: Int, passthrough: URL?, store: String?, tls: Bool = false) -> String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var line = "loupe serve: \(Quantity.count(count, "recording")) from \(TerminalText.line(source)) on \(tls ? "https" : "http")://\(TerminalText.line(shownHost)):\(port)"
        if let passthrough {
            line += "; passthrough is on: misses go to \(passthrough.absoluteString) and are recorded"
        } else {
            line += "; misses are answered 404 and never sent upstream"
        }
        if let store { line += "; recording into \(TerminalText.line(store))" }
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            line += "\nloupe serve: listening on \(TerminalText.line(host)), reachable from other machines, not only this one"
        }
        return line
    }

    /// The source's recordings: a HAR file (by name or first byte) indexed where it is, each entry read from it
    /// through the recorder's redaction when served (a HAR in UTF-16 or UTF-32 read into a temporary store instead,
    /// returned for the caller to remove when it stops); anything else opened as a store (or cassette) read-only.
    /// Only the `keptHeaders` request headers (`--match-header`) are held for matching.
    static func open(_ argument: String?, redaction: RedactionPolicy, filter: TraceFilter?, keptHeaders: [String] = []) throws
        -> (ServeLibrary, String, ServeSpool?) {
        let path = StoreAccess.path(argument)
        guard argument != nil, ReplaySource.isHARFile(path) else {
            let (store, storePath) = try StoreAccess.openForReading(argument)
            do {
                return (try ServeLibrary(store: store, filter: filter, keptHeaders: keptHeaders), storePath, nil)
            } catch {
                throw StoreAccess.readFailure(error)
            }
        }
        _ = try InputFile.regular(path, role: "HAR file")
        if let library = try ServeHARFile.library(har: path, redaction: redaction, filter: filter, keptHeaders: keptHeaders) {
            return (library, path, nil)
        }
        let spool = try ServeSpool.load(har: path, redaction: redaction, filter: filter)
        return (spool.library, path, spool)
    }

    func ignorePatterns() throws -> [DiffPattern] {
        do {
            return try ignore.map { text throws(DiffPatternError) in try DiffPattern(text) }
        } catch {
            throw ValidationError("--ignore \(error)")
        }
    }

    func repeatValue() throws -> ServeRepeat {
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
}
