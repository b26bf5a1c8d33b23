import Foundation
import LoupeTrace

/// The Events tab: the decisions recorded during the exchange, in the order they were recorded.
extension DetailTabs {
    var eventLines: [StyledLine] {
        guard !exchange.events.isEmpty else { return [StyledLine("No events recorded.", style: .dim)] }
        let offsets = exchange.events.map { offset($0.at) }
        let offsetWidth = offsets.map(\.count).max() ?? 0
        return zip(exchange.events, offsets).map { event, offset in
            let attributes = event.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            var spans: [StyledLine.Span] = [
                .init(String(repeating: " ", count: offsetWidth - offset.count) + offset + "  ", .dim),
                .init(ClockFormat.string(event.at, calendar: calendar) + "  ", .dim),
                .init(event.kind.rawValue, .label), .init("  " + event.message),
            ]
            if !attributes.isEmpty { spans.append(.init("  " + attributes.joined(separator: " "), .dim)) }
            return StyledLine(spans)
        }
    }
}
