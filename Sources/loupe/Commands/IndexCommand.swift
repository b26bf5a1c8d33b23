import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe index [STORE]`: builds the search index over the exchanges a store held before it had one.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Index a store's older exchanges for fast ~b, ~h, ~u, ~bq and ~bs filters.",
        discussion: """
            A store written by this Loupe indexes the exchanges it records in batches, a few seconds behind, and when \
            it closes; this command also indexes those a writer that ended without closing left. A store from an older \
            Loupe gets the index's tables when a command records into it, but its earlier exchanges are indexed only \
            by this command (viewers never write, so opening a store never does it). Exchanges are indexed newest first, \
            2,000 to a transaction, with progress on stderr; filters scan what is not indexed yet, so answers are \
            the same before, during and after. Interrupted, it resumes where it stopped.
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    func run() async throws {
        let path = StoreAccess.path(store)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure.badInput("no store at \(TerminalText.line(path))")
        }
        let (store, _) = try StoreAccess.openForWriting(path, autoPrune: false)
        defer { try? store.close() }
        do {
            let before = try store.unindexedCount()
            var shown = 0
            let indexed = try store.buildSearchIndex { progress in
                // A line per tenth, and the last: a million rows are 500 transactions.
                let tenth = progress.indexed * 10 / max(1, before)
                guard tenth > shown || progress.remaining == 0 else { return }
                shown = tenth
                StandardStreams.error("loupe: indexed \(progress.indexed) of \(before) exchanges\n")
            }
            print(indexed == 0 ? "the index already covers every exchange" : "indexed \(indexed) exchanges")
        } catch {
            throw StoreAccess.failure(error, path: path)
        }
    }
}
