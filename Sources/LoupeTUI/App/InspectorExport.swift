import Foundation
import LoupeTrace

/// Carries out an ``ExportRequest``: reads the exchanges, writes the file, and says how it went in one line.
enum InspectorExport {
    /// The most exchanges one export writes from a store that is not streamed (in memory, or a view limited to
    /// marked exchanges); a filtered view of a SQLite store is streamed whatever its size, as `loupe export` is.
    static let limit = 100_000

    static func run(_ request: ExportRequest, store: any TraceStore, copy: (String) -> Void) -> StatusMessage {
        if request.scope == .filtered, request.query.ids == nil, let store = store as? SQLiteTraceStore {
            return streamed(request, from: store, copy: copy)
        }
        do {
            var exchanges: [TraceExchange]
            switch request.scope {
            case .selected, .marked:
                exchanges = try request.ids.compactMap { try store.exchange(id: $0) }
                exchanges.sort { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
            case .filtered:
                exchanges = try store.exchanges(matching: request.query.filter, limit: limit)
                if let ids = request.query.ids { exchanges.removeAll { !ids.contains($0.id) } }
            }
            let message = try ExchangeExport.write(exchanges, as: request.format, to: request.path)
            if request.format == .curl {
                copy(exchanges.map(CurlExporter.command(for:)).joined(separator: "\n\n"))
            }
            return StatusMessage(message)
        } catch {
            return .error("export: \(error)")
        }
    }

    /// A filtered view of a SQLite store, read in batches as the file is written: any number of exchanges in the
    /// memory of one batch (holding them all first, a large store's bodies could take gigabytes).
    private static func streamed(
        _ request: ExportRequest, from store: SQLiteTraceStore, copy: (String) -> Void
    ) -> StatusMessage {
        // The clipboard takes at most `OSC52.maximumSequenceLength` bytes; past that the text only has to stay
        // too long for it to be refused as before, so it stops growing there.
        var clipboard = ""
        do {
            let message = try ExchangeExport.write(as: request.format, to: request.path) { emit in
                try store.forEachBatch(matching: request.query.filter) { batch in
                    for exchange in batch {
                        try emit(exchange)
                        let copying = request.format == .curl && clipboard.utf8.count <= OSC52.maximumSequenceLength
                        guard copying else { continue }
                        clipboard += (clipboard.isEmpty ? "" : "\n\n") + CurlExporter.command(for: exchange)
                    }
                }
            }
            if request.format == .curl { copy(clipboard) }
            return StatusMessage(message)
        } catch {
            return .error("export: \(error)")
        }
    }
}
