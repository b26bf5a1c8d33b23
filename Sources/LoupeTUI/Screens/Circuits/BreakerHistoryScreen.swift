import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeBoard

/// One breaker key's transitions (Enter on the circuits board): time, from → to, reason and the exchange that
/// caused each. Enter opens that exchange; `f` shows the exchanges of the key (host or operation named like it).
package struct BreakerHistoryScreen: Screen {
    package let key: String
    package let entries: [BreakerTransitionEntry]
    private var selected: Int

    package init(key: String, entries: [BreakerTransitionEntry]) {
        self.key = key
        self.entries = entries
        selected = max(0, entries.count - 1)
    }

    package var keyContext: KeyContext { .circuitHistory }
    package var title: String { "circuit \(TerminalText.line(key))" }
    package var position: String { entries.isEmpty ? "" : "\(selected + 1) / \(entries.count)" }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        switch command {
        case .moveUp: selected = max(0, selected - 1)
        case .moveDown: selected = max(0, min(entries.count - 1, selected + 1))
        case .top: selected = 0
        case .bottom, .pageDown: selected = max(0, entries.count - 1)
        case .pageUp: selected = 0
        case .open:
            guard entries.indices.contains(selected) else { return true }
            let id = entries[selected].exchangeID
            guard let found = context.read("the exchange", { try $0.exchange(id: id) }), let exchange = found else {
                context.status = .error("that exchange is no longer in the store")
                return true
            }
            context.pushed = DetailScreen(summary: exchange.summary, context: &context)
        case .exchangesForKey:
            // A breaker is keyed by host (the default) or by operation: the exchanges of either.
            let filter = TraceFilter.or(.host(key), .operation(key))
            context.session.filter = filter
            context.session.filterText = filter.description
            context.popToRootRequested = true
            context.status = StatusMessage("exchanges of circuit \(TerminalText.line(key))")
        default:
            return false
        }
        return true
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        let calendar = Self.clockCalendar(context.calendar)
        let rows = entries.map { Self.cells($0, calendar: calendar).joined(separator: " ") }
        guard let hit = RowSearch.find(text, in: rows, from: selected, forward: forward, fromCurrent: fromCurrent) else {
            return false
        }
        selected = hit.index
        context.status = RowSearch.message(hit, text)
        return true
    }

    private static func clockCalendar(_ calendar: Calendar) -> Calendar {
        var calendar = calendar
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }

    /// What a row shows, column by column (time, from → to, exchange, reason): drawn, and searched by `/`.
    private static func cells(_ entry: BreakerTransitionEntry, calendar: Calendar) -> [String] {
        let exchange = entry.sequence.map { "#\($0)" } ?? String(entry.exchangeID.uuidString.prefix(8)).lowercased()
        var reason = TerminalText.line(entry.reason)
        if let timer = entry.timerAt { reason += " (timer at \(Quantity.clock(timer, calendar: calendar)))" }
        if let probe = entry.probeAt, entry.state == .open { reason += " · probe at \(Quantity.clock(probe, calendar: calendar))" }
        return [Quantity.clock(entry.at, calendar: calendar), "\(entry.from) → \(entry.to)", exchange, reason]
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        buffer.fill(area.row(0), style: .header)
        buffer.write(TableText.pad("TIME", 12, right: false) + " " + TableText.pad("FROM → TO", 24, right: false)
                     + " EXCHANGE   REASON", x: area.x, y: area.y, maxWidth: area.width, style: .header)
        guard !entries.isEmpty else {
            buffer.write("No transitions recorded for this key: it has stayed closed.", x: area.x + 1, y: area.y + 2,
                         maxWidth: area.width - 2, style: .dim)
            return
        }
        let height = area.height - 1
        let first = max(0, min(selected - height + 1, entries.count - height))
        let calendar = Self.clockCalendar(context.calendar)
        for (offset, entry) in entries.dropFirst(first).prefix(height).enumerated() {
            let y = area.y + 1 + offset
            let cells = Self.cells(entry, calendar: calendar)
            var x = buffer.write(TableText.pad(cells[0], 12, right: false), x: area.x, y: y, style: .dim)
            x = buffer.write(" " + TableText.pad(cells[1], 24, right: false), x: x, y: y,
                             style: CircuitsView.style(entry.state ?? .closed))
            x = buffer.write(" " + TableText.pad(cells[2], 10, right: false), x: x, y: y)
            buffer.write(" " + cells[3], x: x, y: y, maxWidth: area.x + area.width - x)
            let shown = TableText.pad(cells[0], 12, right: false) + " " + TableText.pad(cells[1], 24, right: false) + " "
                + TableText.pad(cells[2], 10, right: false) + " " + cells[3]
            if first + offset == selected { buffer.setStyle(.selection, in: area.row(1 + offset)) }
            RowSearch.highlight(context.search, in: shown, x: area.x, y: y, maxX: area.maxX, into: &buffer)
        }
    }
}
