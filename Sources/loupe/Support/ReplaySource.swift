import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats

/// Where `loupe replay` reads the exchanges it sends again: a trace store, or a HAR file read into memory (its
/// entries numbered `#1`, `#2`… in file order, so `--id '#3'` is the third entry).
struct ReplaySource {
    /// At most this many exchanges are selected: a larger replay is a load test, which `--times` expresses.
    static let maximumSelection = 10_000

    let store: any TraceStore
    /// The path as given (tilde expanded).
    let path: String
    let isHAR: Bool

    /// Opens `argument` (default: the default store): a file whose name ends in `.har`, or whose first byte is
    /// `{`, is read as HAR with `redaction`; anything else is opened as a store, read-only.
    static func open(_ argument: String?, redaction: RedactionPolicy) throws -> ReplaySource {
        let path = StoreAccess.path(argument)
        guard argument != nil, isHARFile(path) else {
            let (store, storePath) = try StoreAccess.openForReading(argument)
            return ReplaySource(store: store, path: storePath, isHAR: false)
        }
        try InputFile.regular(path, role: "HAR file")
        let exchanges: [TraceExchange]
        do {
            exchanges = try HARImporter(redaction: redaction).exchanges(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure.badInput("\(path): \(error)")
        }
        let store = InMemoryTraceStore()
        try store.write(exchanges)
        return ReplaySource(store: store, path: path, isHAR: true)
    }

    static func isHARFile(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".har") { return true }
        // Only a regular file is opened: a FIFO would block the open (the store's own checks refuse it later).
        guard (try? InputFile.regular(path, role: "file")) != nil, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        return head.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
    }

    /// The exchanges `--id` or `--filter` names, oldest first. No match, or more than ``maximumSelection``, is
    /// bad input.
    func select(id: String?, filter: TraceFilter?) throws -> [TraceExchange] {
        do {
            if let id { return [try lookup(id)] }
            let summaries = try store.summaries(matching: filter, limit: Self.maximumSelection + 1)
            guard summaries.count <= Self.maximumSelection else {
                throw CommandFailure.badInput("the filter matches more than \(Self.maximumSelection) exchanges in \(path); narrow it (replay the same ones many times with --times)")
            }
            let exchanges = try summaries.compactMap { try store.exchange(id: $0.id) }
            guard !exchanges.isEmpty else { throw CommandFailure.badInput("no exchange in \(path) matches the filter") }
            return exchanges
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw StoreAccess.readFailure(error)
        }
    }

    private func lookup(_ reference: String) throws -> TraceExchange {
        switch try store.lookup(reference) {
        case .found(let exchange):
            return exchange
        case .notFound:
            throw CommandFailure.badInput("no exchange \(reference) in \(path)")
        case .ambiguous(let candidates):
            let ids = candidates.map { "#\($0.sequence)" }.joined(separator: ", ")
            throw CommandFailure.badInput("\(reference) matches several exchanges (\(ids)…); give more of the id or a #sequence")
        }
    }
}
