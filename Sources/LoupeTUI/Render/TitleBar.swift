import Foundation
import Loupe
import LoupeQuery

/// The top line: where you are (exchanges › detail), the store, the filter; on the right the count, order, marks
/// and follow mode.
struct TitleBar {
    let state: TUIState

    func render(in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, style: .title)
        let session = state.session
        var right: [String] = []
        // The nearest list on the stack (the timeline under a detail, say): the one the position also counts.
        if let total = state.screens.last(where: \.listsExchanges)?.listTotal {
            right.append("\(Quantity.count(total)) \(session.filter == nil && !session.showsMarkedOnly ? "" : "shown")"
                .trimmingCharacters(in: .whitespaces))
        }
        right.append("\(session.order.key.rawValue)\(session.order.descending ? "↓" : "↑")")
        if !session.marks.isEmpty { right.append("●\(session.marks.count)\(session.showsMarkedOnly ? " only" : "")") }
        right.append(session.follow ? "follow" : "paused")
        let rightText = right.joined(separator: " · ") + " "
        let rightX = max(area.x, area.maxX - DisplayWidth.of(rightText))
        let leftWidth = rightX - area.x - 1
        let head = " Loupe │ " + state.screens.map(\.title).joined(separator: " › ") + " │ "
        let filterText = session.filterText.map { " │ \($0)" } ?? ""
        // The filter says what the list shows, the store only where it comes from: a long path gives way first,
        // keeping its end (the file's name).
        // Serving (`tui --serve`) says where clients call, which the store's path gives way to as well.
        let servingText = state.serving.map { " │ serving " + $0.address } ?? ""
        let storeWidth = leftWidth - DisplayWidth.of(head) - DisplayWidth.of(filterText) - DisplayWidth.of(servingText)
        var left = head + DisplayWidth.truncateLeading(state.storeName, to: max(storeWidth, 1)) + servingText + filterText
        if let sources = SourceStatus.summary(state.sources, calendar: state.calendar) { left += " │ " + sources }
        buffer.write(DisplayWidth.truncate(left, to: leftWidth), x: area.x, y: area.y, style: .title)
        buffer.write(rightText, x: rightX, y: area.y, maxWidth: area.maxX - rightX, style: .title)
    }
}
