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

    @OptionGroup(title: "Redaction")
    var redaction: RedactionFlags

    func run() async throws {
        // A directory, FIFO or device (`/dev/zero`) is refused before any read, which could otherwise never end.
        let path = try InputFile.regular(StoreAccess.expandTilde(file), role: "HAR file")
        let policy = redaction.policy
        let exchanges: [TraceExchange]
        do {
            exchanges = try HARImporter(redaction: policy).exchanges(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure.badInput("\(path): \(error)")
        }
        let (store, storePath) = try StoreAccess.openForWriting(store)
        defer { StoreAccess.reportPrunes(store, path: storePath) }  // what keeping the store within its bounds removed
        do {
            try store.write(exchanges)
        } catch {
            throw CommandFailure.badInput("cannot write \(exchanges.count) exchange(s) to \(storePath), none imported: \(error)")
        }
        print(TerminalText.line("Imported \(exchanges.count) exchange(s) from \(path) into \(storePath)"))
    }
}
