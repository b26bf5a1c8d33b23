import Foundation
import LoupeTrace

/// Carries out an ``ExportRequest``: reads the exchanges, writes the file, and says how it went in one line.
enum InspectorExport {
    /// The most exchanges one export writes from a store that is not streamed (in memory, or a view limited to
    /// marked exchanges); a filtered view of a SQLite store is streamed whatever its size, as `loupe export` is.
    static let limit = 100_000

    static func run(_ request: ExportRequest, store: any TraceStore, copy: (String) -> Void) -> StatusMessage {
        // The clipboard takes at most `OSC52.maximumSequenceLength` bytes; past that the text only has to stay too
        // long for it to be refused, so it stops growing there.
        var clipboard = ""
        do {
            let message = try ExchangeExport.write(as: request.format, to: request.path) { emit in
                try forEach(request, in: store) { exchange in
                    try emit(exchange)
                    guard request.format == .curl, clipboard.utf8.count <= OSC52.maximumSequenceLength else { return }
                    clipboard += (clipboard.isEmpty ? "" : "\n\n") + CurlExporter.command(for: exchange)
                }
            }
            if request.format == .curl { copy(clipboard) }
            return StatusMessage(message)
        } catch {
            return .error("export: \(error)")
        }
    }

    /// The request's exchanges, oldest first. A filtered view of a SQLite store is read in batches as the file is
    /// written, so any number fits in the memory of one batch (holding a large store's bodies at once could take
    /// gigabytes); the others are read at once, up to ``limit``.
    private static func forEach(
        _ request: ExportRequest, in store: any TraceStore, _ body: (TraceExchange) throws -> Void
    ) throws {
        if request.scope == .filtered, request.query.ids == nil, let store = store as? SQLiteTraceStore {
            return try store.forEachBatch(matching: request.query.filter) { try $0.forEach(body) }
        }
        var exchanges: [TraceExchange]
        switch request.scope {
        case .selected, .marked:
            exchanges = try request.ids.compactMap { try store.exchange(id: $0) }
            exchanges.sort { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
        case .filtered:
            exchanges = try store.exchanges(matching: request.query.filter, limit: limit)
            if let ids = request.query.ids { exchanges.removeAll { !ids.contains($0.id) } }
        }
        try exchanges.forEach(body)
    }
}
