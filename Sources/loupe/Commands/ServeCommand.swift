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

    @Option(help: "Serve only the recordings matching EXPR; see `loupe list --help`.")
    var filter: String?

    @OptionGroup var serving: ServeFlags

    @Option(help: "Record every request served (and every miss) into this store, marked served (~served).")
    var store: String?

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let redaction = RedactionPolicy()
        let (library, sourcePath, spool) = try Self.open(source, redaction: redaction, filter: filter, keptHeaders: serving.matchHeaders)
        defer { spool?.remove() }
        var destination: (any TraceStoreWriting)?
        var destinationPath: String?
        if let store {
            let (opened, path) = try StoreAccess.openForWriting(store)
            destination = opened
            destinationPath = path
        }
        let running = try await serving.start(library: library, redaction: redaction, store: destination) { line in
            print(line)
            try? StandardStreams.flushOutput()
        }
        let server = running.server
        let host = serving.host
        print(Self.startLine(count: library.requests.count, source: sourcePath, host: host, port: server.port,
                             passthrough: running.options.passthrough, store: destinationPath, tls: running.identity != nil))
        if let identity = running.identity { print("loupe serve: TLS certificate fp=sha256:\(identity.fingerprint.hex) (self-signed, in \(identity.folder))") }
        if let file = running.rulesFile { print("loupe serve: answers pass through the rules of \(TerminalText.line(file.path))") }
        try? StandardStreams.flushOutput()
        await StopSignals.wait()
        await running.stop()
        if server.droppedRecordings > 0, let destinationPath {
            StandardStreams.error("loupe: \(Quantity.count(server.droppedRecordings, "served exchange")) not recorded into \(TerminalText.line(destinationPath)): the store fell behind\n")
        }
    }

    /// What the server says when it starts: how much it serves, where, and what happens to a miss.
    static func startLine(count: Int, source: String, host: String, port: Int, passthrough: URL?, store: String?, tls: Bool = false) -> String {
        var line = "loupe serve: \(Quantity.count(count, "recording")) from \(TerminalText.line(source)) on \(address(host: host, port: port, tls: tls))"
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

    /// Where clients call the server: `http://127.0.0.1:8080`, an IPv6 address in brackets.
    static func address(host: String, port: Int, tls: Bool) -> String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "https" : "http")://\(TerminalText.line(shownHost)):\(port)"
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
}
