import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats

/// Carries out an ``ExportRequest``: reads the exchanges, writes the file, and says how it went in one line.
enum TUIExport {
    /// The most exchanges one export writes from a store that is not streamed (in memory, or a view limited to
    /// marked exchanges); a filtered view of a SQLite store is streamed whatever its size, as `loupe export` is.
    static let limit = 100_000

    /// Exchanges between two progress reports.
    static let progressEvery = 1_000

    /// What an export ended with: the status line, and for curl the commands for the clipboard.
    struct Outcome: Sendable {
        var message: StatusMessage
        var clipboard: String?
    }

    /// Runs `request` against `store`. `isCancelled` is asked before each exchange (a cancelled export removes its
    /// partial file and changes nothing); `progress` hears the count every ``progressEvery`` exchanges.
    static func run(
        _ request: ExportRequest, store: any TraceStore, isCancelled: () -> Bool = { false },
        progress: (Int) -> Void = { _ in }
    ) -> Outcome {
        // The clipboard takes at most `OSC52.maximumSequenceLength` bytes; past that the text only has to stay too
        // long for it to be refused, so it stops growing there.
        var clipboard = ""
        var written = 0
        do {
            let message = try ExchangeExport.write(as: request.format, to: request.path) { emit in
                try forEach(request, in: store) { exchange in
                    if isCancelled() { throw CancellationError() }
                    try emit(exchange)
                    written += 1
                    if written % progressEvery == 0 { progress(written) }
                    guard request.format == .curl, clipboard.utf8.count <= OSC52.maximumSequenceLength else { return }
                    clipboard += (clipboard.isEmpty ? "" : "\n\n") + CurlExporter.command(for: exchange)
                }
            }
            return Outcome(message: StatusMessage(message), clipboard: request.format == .curl ? clipboard : nil)
        } catch {
            if isCancelled() {
                return Outcome(message: StatusMessage(TerminalText.line("export to \(request.path) cancelled; no file was written")))
            }
            return Outcome(message: .error("export: \(error)"))
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
