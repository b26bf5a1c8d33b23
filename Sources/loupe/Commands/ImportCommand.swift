import ArgumentParser
import Foundation
import Loupe
import LoupeTrace
import LoupeFormats

/// `loupe import FILE.har [--store PATH]`: the entries of a HAR file (Loupe's, a browser's, a proxy's) as exchanges.
///
/// The file is read twice, entry by entry, so memory does not grow with it: first its JSON and the shape of its log
/// are checked (a truncated, garbled or non-HAR file is refused before the store is opened), then each entry is
/// decoded, converted and written as it is read, all in one transaction. An entry refused on that second pass (a
/// missing URL, a time outside 0000–9999) rolls the transaction back: no exchange of the file is imported.
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
        MallocTuning.keepFreedMemory()  // bodies of up to a megabyte, read and freed one by one
        // A directory, FIFO or device (`/dev/zero`) is refused before any read, which could otherwise never end.
        let path = try InputFile.regular(StoreAccess.expandTilde(file), role: "HAR file")
        let url = URL(fileURLWithPath: path)
        let importer = HARImporter(redaction: redaction.policy)
        let entries: Int
        do {
            entries = try importer.check(contentsOf: url)
        } catch {
            throw CommandFailure.badInput("\(path): \(error)")
        }
        let created = !FileManager.default.fileExists(atPath: StoreAccess.path(self.store))
        let (store, storePath) = try StoreAccess.openForWriting(store)
        let count: WriteCount
        do {
            count = try importer.write(contentsOf: url, into: store)
        } catch {
            // Nothing was imported: a store this import created goes again rather than stay behind empty.
            if created { StoreAccess.remove(store, path: storePath) } else { StoreAccess.reportPrunes(store, path: storePath) }
            if error is HARImportError { throw CommandFailure.badInput("\(path): \(error)") }
            throw CommandFailure.badInput("cannot write \(Quantity.count(entries, "exchange")) to \(storePath), none imported: \(error)")
        }
        StoreAccess.reportPrunes(store, path: storePath)  // what keeping the store within its bounds removed
        print(TerminalText.line(Self.summary(count, file: path, store: storePath)))
    }

    /// `Imported 364 exchanges from F into S: 0 new, 364 already there (replaced by the file's copies).`: an
    /// exchange keeps its id through export and import, so importing a file again replaces rather than adds, and
    /// the line says which happened.
    static func summary(_ count: WriteCount, file: String, store: String) -> String {
        let head = "Imported \(Quantity.count(count.written, "exchange")) from \(file) into \(store)"
        guard count.written > 0 else { return head }
        let replaced = count.replaced == 0 ? "" : ", \(Quantity.count(count.replaced)) already there (replaced by the file's "
            + (count.replaced == 1 ? "copy)" : "copies)")
        return head + ": \(Quantity.count(count.added)) new" + replaced
    }
}
