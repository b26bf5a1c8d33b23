import Foundation
import LoupeProtobuf
import LoupeTrace

/// One exchange as one document: the detail tabs' header and every tab in turn, bodies pretty, the waterfall at
/// 80 columns. What `loupe show` prints (``plainText``), so it and the TUI cannot drift.
package struct DetailDocument {
    package let exchange: TraceExchange
    /// Gives the start's date and time their time zone.
    package let calendar: Calendar
    /// Store numbers of the exchanges this one names (``DetailTabs/numbers``).
    package let numbers: [UUID: Int64]
    /// Names gRPC messages' fields (``DetailTabs/messageTypes``).
    package let messageTypes: ProtobufDescriptorSet?

    /// The width the timing waterfall is drawn to.
    package static let timingWidth = 80

    package init(exchange: TraceExchange, calendar: Calendar, numbers: [UUID: Int64] = [:],
                 messageTypes: ProtobufDescriptorSet? = nil) {
        self.exchange = exchange
        self.calendar = calendar
        self.numbers = numbers
        self.messageTypes = messageTypes
    }

    /// The lines, unwrapped; every recorded value in them is already safe for a terminal.
    package var lines: [StyledLine] {
        let tabs = DetailTabs(exchange: exchange, calendar: calendar, medium: .document, numbers: numbers,
                              messageTypes: messageTypes)
        var lines = tabs.header() + [.empty]
        lines += tabs.lines(.request, bodyView: .pretty, width: Self.timingWidth) + [.empty]
        lines += tabs.lines(.response, bodyView: .pretty, width: Self.timingWidth)
        for tab in DetailTab.tabs(for: exchange) where ![.request, .response].contains(tab) {
            let count = tab == .attempts ? exchange.attempts.count : tab == .events ? exchange.events.count
                : tab == .messages ? exchange.stream?.messageCount : nil
            lines += [.empty, DetailTabs.heading(tab.title + (count.map { " (\($0))" } ?? ""))]
            lines += tabs.lines(tab, bodyView: .pretty, width: Self.timingWidth)
        }
        return lines
    }

    /// The lines without styles, one per text line: what `loupe show` prints.
    package var plainText: String {
        lines.map(\.text).joined(separator: "\n")
    }
}
