import ArgumentParser
import Foundation
import Loupe
import LoupeTrace

/// `loupe export [STORE] --har FILE [--filter EXPR]`: the matching exchanges as a HAR 1.2 file, oldest first.
///
/// The file is written beside its final place and renamed over it at the end, so a reader never sees half a file
/// and a failed export leaves any previous file as it was. Exchanges are read in batches (a few queries per
/// batch, none per exchange) and written entry by entry, so memory does not grow with the store.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export recorded exchanges as a HAR 1.2 file.",
        discussion: """
            Loupe's own data (attempts, breaker states, retries, events, replay links) travels in `_loupe` fields that
            other tools ignore and `loupe import` reads back. Values redacted when recording stay redacted.

            \(FilterOption.help)
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: ArgumentHelp("Where to write the HAR file ('-' for standard output).", valueName: "FILE"))
    var har: String

    @Option(help: "Only exchanges matching EXPR, e.g. '~c 5xx | ~dur >1s'.")
    var filter: String?

    func run() async throws {
        MallocTuning.keepFreedMemory()  // bodies of up to a megabyte, read and freed one by one
        let filter = try FilterOption.parse(self.filter)
        let (store, storePath) = try StoreAccess.openForReading(store)
        if har == "-" {
            let count = try export(from: store, filter: filter) { try StandardStreams.output($0) }
            StandardStreams.error("loupe: exported \(Quantity.count(count, "exchange"))\n")
            return
        }
        let destination = StoreAccess.expandTilde(har)
        if Self.sameFile(destination, storePath) || ["-wal", "-shm", "-journal"].contains(where: { Self.sameFile(destination, storePath + $0) }) {
            throw CommandFailure.badInput("refusing to overwrite the trace store \(storePath) with a HAR file")
        }
        let count = try writeAtomically(to: destination) { handle in
            try export(from: store, filter: filter) { try handle.write(contentsOf: $0) }
        }
        print(TerminalText.line("Exported \(Quantity.count(count, "exchange")) to \(destination)"))
    }

    /// Streams the matching exchanges into `sink`; returns how many.
    private func export(from store: SQLiteTraceStore, filter: TraceFilter?, sink: @escaping (Data) throws -> Void) throws -> Int {
        var writer = HARWriter(sink: sink)
        do {
            try writer.begin()
            try store.export(matching: filter, into: &writer)
            try writer.finish()
        } catch let error as TraceStoreError {
            throw StoreAccess.readFailure(error)
        } catch let error as TraceFilterError {
            throw StoreAccess.readFailure(error)
        }
        return writer.count
    }

    /// Writes through `body` into a temporary file beside `path`, then renames it over `path`.
    private func writeAtomically<T>(to path: String, _ body: (FileHandle) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // Owner-only, like the store: the file holds recorded traffic.
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure.badInput("cannot write \(path): cannot create a file in \(folder.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            let result: T
            do {
                defer { try? handle.close() }
                result = try body(handle)
                try handle.synchronize()
            }
            if rename(temporary.path, path) != 0 {
                throw CommandFailure.badInput("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return result
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let failure = error as? CommandFailure { throw failure }
            throw CommandFailure.badInput("cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// Whether two paths name the same file (after following symbolic links), or the same path when neither exists.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        let a = URL(fileURLWithPath: first).standardizedFileURL.resolvingSymlinksInPath()
        let b = URL(fileURLWithPath: second).standardizedFileURL.resolvingSymlinksInPath()
        if a.path == b.path { return true }
        guard let left = try? FileManager.default.attributesOfItem(atPath: a.path),
              let right = try? FileManager.default.attributesOfItem(atPath: b.path) else { return false }
        return (left[.systemFileNumber] as? Int) == (right[.systemFileNumber] as? Int)
            && (left[.systemNumber] as? Int) == (right[.systemNumber] as? Int)
            && left[.systemFileNumber] != nil
    }
}
