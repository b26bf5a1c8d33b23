import Foundation
import Loupe
import LoupeTrace

/// The Events tab: the decisions recorded during the exchange, in the order they were recorded.
extension DetailTabs {
    var eventLines: [StyledLine] {
        guard !exchange.events.isEmpty else { return [StyledLine("No events recorded.", style: .dim)] }
        let offsets = exchange.events.map { offset($0.at) }
        let offsetWidth = offsets.map(\.count).max() ?? 0
        return zip(exchange.events, offsets).map { event, offset in
            // An attribute naming an exchange (`leader`, `promotedFrom`) reads as `#N`, as the message does.
            let attributes = event.attributes.sorted { $0.key < $1.key }.map { key, value in
                "\(key)=\(UUID(uuidString: value).map(reference) ?? value)"
            }
            var spans: [StyledLine.Span] = [
                .init(String(repeating: " ", count: offsetWidth - offset.count) + offset + "  ", .dim),
                .init(Quantity.clock(event.at, calendar: calendar) + "  ", .dim),
                .init(event.kind.rawValue, .label), .init("  " + message(of: event)),
            ]
            if !attributes.isEmpty { spans.append(.init("  " + attributes.joined(separator: " "), .dim)) }
            return StyledLine(spans)
        }
    }

    /// The recorded message, with the exchanges it names by id read as `#N` (`joined #12, which carried the
    /// request GET /items`): the middleware records before the store numbers anything, so the ids are mapped here.
    private func message(of event: TraceEvent) -> String {
        if event.kind == .dedupJoin, let leader = event.attributes["leader"].flatMap(UUID.init) {
            return "joined \(reference(leader)), which carried the request" + (event.attributes["request"].map { " " + $0 } ?? "")
        }
        var text = event.message
        for value in event.attributes.values {
            guard let id = UUID(uuidString: value) else { continue }
            for spelling in [id.uuidString, id.uuidString.lowercased()] {
                text = text.replacingOccurrences(of: "exchange " + spelling, with: reference(id))
                text = text.replacingOccurrences(of: spelling, with: reference(id))
            }
        }
        return text
    }
}
