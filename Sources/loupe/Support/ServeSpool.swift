import Foundation
import LoupeFormats
import LoupeQuery
import LoupeServe
import LoupeTrace

/// A HAR file served by `loupe serve`, read entry by entry into a temporary store: memory keeps only the requests
/// that matching compares, and each response is read from the store when it is served, whatever the file's size.
///
/// The store lives in a folder of its own (0700, the file 0600) under the temporary directory, and ``remove()``
/// deletes both when the server stops.
final class ServeSpool {
    let store: SQLiteTraceStore
    let library: ServeLibrary
    private let folder: String

    private init(store: SQLiteTraceStore, library: ServeLibrary, folder: String) {
        self.store = store
        self.library = library
        self.folder = folder
    }

    /// Reads the HAR file at `path` through `redaction` into a new temporary store; `filter` selects the recordings
    /// served (every entry is stored, only the selected ones are matched). Nothing is left behind when it throws.
    static func load(har path: String, redaction: RedactionPolicy, filter: TraceFilter?) throws -> ServeSpool {
        var template = Array((NSTemporaryDirectory() + "/loupe-serve.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure.badInput("cannot make a temporary folder for \(TerminalText.line(path)): \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        let storePath = folder + "/recordings.sqlite"
        do {
            // No bounds: an automatic prune would drop recordings the index still points at.
            let store = try SQLiteTraceStore(path: storePath, bounds: nil)
            var ids: [UUID] = []
            var requests: [ServeRequest] = []
            do {
                try HARImporter(redaction: redaction).write(contentsOf: URL(fileURLWithPath: path), into: store) { exchange in
                    guard exchange.status != nil, filter?.matches(exchange) ?? true else { return }
                    ids.append(exchange.id)
                    requests.append(ServeRequest(exchange))
                }
            } catch {
                try? store.close()
                throw CommandFailure.badInput("\(path): \(error)")
            }
            let library = ServeLibrary(store: store, ids: ids, requests: requests)
            return ServeSpool(store: store, library: library, folder: folder)
        } catch {
            Self.delete(folder)
            throw error
        }
    }

    /// Closes the store and deletes it with its folder.
    func remove() {
        try? store.close()
        Self.delete(folder)
    }

    private static func delete(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
