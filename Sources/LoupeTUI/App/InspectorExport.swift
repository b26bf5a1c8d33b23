import Foundation
import LoupeTrace

/// Carries out an ``ExportRequest``: reads the exchanges, writes the file, and says how it went in one line.
enum InspectorExport {
    /// The most exchanges one export from the inspector writes; `loupe export` streams any number.
    static let limit = 100_000

    static func run(_ request: ExportRequest, store: any TraceStore, copy: (String) -> Void) -> StatusMessage {
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
            guard !exchanges.isEmpty else { return .error("export: no exchanges to write") }
            let message = try ExchangeExport.write(exchanges, as: request.format, to: request.path)
            if request.format == .curl {
                copy(exchanges.map(CurlExporter.command(for:)).joined(separator: "\n\n"))
            }
            return StatusMessage(message)
        } catch {
            return .error("export: \(error)")
        }
    }
}
