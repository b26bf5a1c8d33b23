import Foundation
import LoupeFormats
import LoupeQuery
import LoupeServe
import LoupeTrace
import Synchronization

/// A HAR file served by `loupe serve` from the file itself: one streaming read keeps, per served entry, the request
/// that matching compares and where the entry's bytes are; the entry is read and converted again (through the same
/// redaction and body cap) when it is served. Nothing is copied into a store, so readiness costs one parse of the
/// file, and memory holds the requests, not the responses.
///
/// The file is held open until the server stops; a file changed while it is served answers 500 for an entry that
/// no longer reads as one (`ServeResponder` says which recording could not be read).
final class ServeHARFile: Sendable {
    /// The open file the entries are read from; a seek and a read go together, so one request at a time.
    private let handle: Mutex<FileHandle>
    /// Where each served entry's bytes are, by recording index, and its index among the file's entries.
    private let ranges: [Range<Int>]
    private let entryIndexes: [Int]
    private let importer: HARImporter

    /// The recordings of the HAR file at `path`, read once; `filter` selects the entries served; only the
    /// `keptHeaders` request headers (the `--match-header` names) are held for matching. The library holds the file
    /// open, and closes it when it is released. `nil` for a file in UTF-16 or UTF-32, which is served through a
    /// temporary store instead (``ServeSpool``).
    static func library(har path: String, redaction: RedactionPolicy, filter: TraceFilter?, keptHeaders: [String]) throws -> ServeLibrary? {
        let importer = HARImporter(redaction: redaction)
        var requests: [ServeRequest] = []
        var ranges: [Range<Int>] = []
        var entryIndexes: [Int] = []
        var entry = 0
        let counted: Int?
        do {
            counted = try importer.forEachExchangeWithRange(contentsOf: URL(fileURLWithPath: path)) { exchange, range in
                defer { entry += 1 }
                guard exchange.status != nil, filter?.matches(exchange) ?? true else { return }
                requests.append(ServeRequest(exchange).keepingHeaders(keptHeaders))
                ranges.append(range)
                entryIndexes.append(entry)
            }
        } catch {
            throw CommandFailure.badInput("\(path): \(error)")
        }
        guard counted != nil else { return nil }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure.badInput("\(path): cannot read the file: \(error.localizedDescription)")
        }
        let file = ServeHARFile(handle: handle, ranges: ranges, entryIndexes: entryIndexes, importer: importer)
        return ServeLibrary(requests: requests) { index in try file.exchange(at: index) }
    }

    private init(handle: FileHandle, ranges: [Range<Int>], entryIndexes: [Int], importer: HARImporter) {
        self.handle = Mutex(handle)
        self.ranges = ranges
        self.entryIndexes = entryIndexes
        self.importer = importer
    }

    deinit { handle.withLock { try? $0.close() } }

    /// The recording at `index`, read from the file and converted as when it was indexed.
    func exchange(at index: Int) throws -> TraceExchange? {
        guard ranges.indices.contains(index) else { return nil }
        let range = ranges[index]
        let bytes = try handle.withLock { handle in
            try handle.seek(toOffset: UInt64(range.lowerBound))
            return try handle.read(upToCount: range.count) ?? Data()
        }
        guard bytes.count == range.count else { return nil }
        return try importer.exchange(entryBytes: bytes, index: entryIndexes[index])
    }
}
