import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe import FILE.har [--store PATH]`: the entries of a HAR file (Loupe's, a browser's, a proxy's) as exchanges.
///
/// The whole file is read and checked before the store is opened, and the exchanges are written in one
/// transaction: a bad file changes nothing.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a HAR file into a trace store.",
        discussion: """
            Reads HAR 1.1 and 1.2 from browsers (Chrome, Firefox, Safari), proxies (mitmproxy, Charles, Proxyman) and \
            other tools; files written by `loupe export` come back exactly as exported. Secrets are redacted on the \
            way in as when recording (Authorization, Cookie, Set-Cookie, Proxy-Authorization, plus the names given).
            """)

    @Argument(help: ArgumentHelp("The HAR file to import.", valueName: "FILE.har"))
    var file: String

    @Option(help: "The trace store to import into (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(name: .customLong("redact-header"), help: ArgumentHelp("Also redact this header (repeatable).", valueName: "NAME"))
    var redactHeaders: [String] = []

    @Option(name: .customLong("redact-query"), help: ArgumentHelp("Also redact this query item (repeatable).", valueName: "NAME"))
    var redactQueryItems: [String] = []

    @Option(name: .customLong("redact-field"), help: ArgumentHelp("Also redact this JSON or form field (repeatable).", valueName: "NAME"))
    var redactFields: [String] = []

    func run() async throws {
        let path = StoreAccess.expandTilde(file)
        let policy = RedactionPolicy(headerNames: Set(redactHeaders), queryItemNames: Set(redactQueryItems),
                                     jsonFieldNames: Set(redactFields))
        let exchanges: [TraceExchange]
        do {
            exchanges = try HARImporter(redaction: policy).exchanges(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure.badInput("\(path): \(error)")
        }
        let (store, storePath) = try StoreAccess.openForWriting(store)
        do {
            try store.write(exchanges)
        } catch {
            throw CommandFailure.badInput("cannot write to \(storePath): \(error)")
        }
        print("Imported \(exchanges.count) exchange(s) from \(path) into \(storePath)")
    }
}
