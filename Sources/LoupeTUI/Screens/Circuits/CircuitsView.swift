import Foundation
import Loupe
import LoupeTrace
import LoupeBoard

/// Draws the board: a table of keys, then the selected key's last transition, retry figures and a taller
/// two-minute chart of requests with failures stacked under them.
struct CircuitsView {
    let rows: [BreakerRow]
    let selected: Int
    let now: Date
    /// The search to highlight in the key column.
    var search: String?

    /// Widths of the fixed columns: key, state, failure rate, slow rate, calls, short-circuited (the breaker refused
    /// the call; `SHRT` as in the exchanges list), next probe.
    private static let widths = [10, 9, 8, 8, 6, 6]
    private static let headings = ["STATE", "FAIL/THR", "SLOW/THR", "CALLS", "SHRT", "PROBE"]

    func render(in area: Rect, into buffer: inout Buffer) {
        guard area.height > 2 else { return }
        let keyWidth = max(10, min(28, area.width / 4))
        let fixed = keyWidth + Self.widths.reduce(0, +) + Self.widths.count + 1
        let retryWidth = area.width >= 110 ? 14 : 0
        let sparkWidth = max(0, area.width - fixed - retryWidth - 1)
        buffer.fill(area.row(0), style: .header)
        var header = TableText.pad("KEY", keyWidth, right: false)
        for (index, (heading, width)) in zip(Self.headings, Self.widths).enumerated() {
            header += " " + TableText.pad(heading, width, right: index != 0)  // the state reads left-aligned
        }
        if retryWidth > 0 { header += " " + TableText.pad("RETRY/DENY/OK", retryWidth - 1) }
        // The chart's column is 5 wide at 80 columns: a heading cut to "LAST 2" would say nothing.
        header += " " + (sparkWidth >= 10 ? "LAST 2 MIN" : "2 MIN")
        buffer.write(header, x: area.x, y: area.y, maxWidth: area.width, style: .header)
        guard !rows.isEmpty else {
            buffer.write("No circuit breakers recorded yet: keys appear once a client with a breaker sends.",
                         x: area.x + 1, y: area.y + 2, maxWidth: area.width - 2, style: .dim)
            return
        }
        let panelHeight = area.height >= 14 ? 6 : 3
        let tableHeight = max(1, area.height - 1 - panelHeight)
        let first = max(0, min(selected - tableHeight + 1, rows.count - tableHeight))
        for (offset, row) in rows.dropFirst(first).prefix(tableHeight).enumerated() {
            let y = area.y + 1 + offset
            var x = buffer.write(TableText.pad(row.key, keyWidth, right: false), x: area.x, y: y, maxWidth: keyWidth)
            RowSearch.highlight(search, in: row.key, x: area.x, y: y, maxX: area.x + keyWidth, into: &buffer)
            x = buffer.write(" " + TableText.pad(Self.stateText(row.state), Self.widths[0], right: false), x: x, y: y,
                             style: Self.style(row.state))
            let failure = TableText.pad("\(TableText.percent(row.failureRate))/\(TableText.percent(row.thresholds.failureRate))", Self.widths[1])
            x = buffer.write(" " + failure, x: x, y: y, style: Self.rateStyle(row.failureRate, row.thresholds.failureRate))
            let slow = TableText.pad("\(TableText.percent(row.slowCallRate))/\(TableText.percent(row.thresholds.slowCallRate))", Self.widths[2])
            x = buffer.write(" " + slow, x: x, y: y, style: Self.rateStyle(row.slowCallRate, row.thresholds.slowCallRate))
            x = buffer.write(" " + TableText.pad(String(row.callsInWindow), Self.widths[3]), x: x, y: y)
            x = buffer.write(" " + TableText.pad(String(row.notPermitted), Self.widths[4]), x: x, y: y,
                             style: row.notPermitted > 0 ? .statusClientError : .normal)
            x = buffer.write(" " + TableText.pad(row.probeIn.map(Self.countdown) ?? "", Self.widths[5]), x: x, y: y)
            if retryWidth > 0 {
                x = buffer.write(" " + TableText.pad("\(row.retries)/\(row.budgetDenied)/\(row.retrySucceeded)", retryWidth - 1),
                                 x: x, y: y)
            }
            drawSpark(row, x: x + 1, y: y, width: sparkWidth, into: &buffer)
            if first + offset == selected {
                buffer.setStyle(.selection, in: Rect(x: area.x, y: y, width: x - area.x, height: 1))
                RowSearch.highlight(search, in: row.key, x: area.x, y: y, maxX: area.x + keyWidth, into: &buffer)
            }
        }
        if rows.indices.contains(selected) {
            let panel = Rect(x: area.x, y: area.y + area.height - panelHeight, width: area.width, height: panelHeight)
            BreakerPanel(row: rows[selected], now: now).render(in: panel, into: &buffer)
        }
    }

    /// A one-row sparkline: height for requests, red where failures are half or more, yellow where any.
    private func drawSpark(_ row: BreakerRow, x: Int, y: Int, width: Int, into buffer: inout Buffer) {
        guard width > 0 else { return }
        let requests = EighthBlocks.resample(row.series.map { Double($0.requests) }, into: width)
        let failures = EighthBlocks.resample(row.series.map { Double($0.failures) }, into: width)
        for (index, character) in EighthBlocks.sparkline(requests).enumerated() {
            let style: Style = failures[index] == 0 ? .statusSuccess
                : failures[index] * 2 >= requests[index] ? .statusServerError : .statusClientError
            buffer.write(String(character), x: x + index, y: y, style: style)
        }
    }

    static func stateText(_ state: CircuitState) -> String { state.rawValue.uppercased() }

    static func style(_ state: CircuitState) -> Style {
        switch state {
        case .closed: .statusSuccess
        case .open, .forcedOpen: .statusServerError
        case .halfOpen: .statusClientError
        case .disabled: .dim
        }
    }

    /// Red at or over the threshold, yellow from half of it.
    static func rateStyle(_ rate: Double?, _ threshold: Double) -> Style {
        guard let rate else { return .dim }
        if rate >= threshold { return .statusServerError }
        return rate * 2 >= threshold ? .statusClientError : .normal
    }

    /// `12.0 s`, `185 s`, `due`: the time to the next probe, in whole seconds rounded up.
    static func countdown(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, seconds > 0 else { return "due" }
        return Quantity.duration(min(seconds, 1e7).rounded(.up))
    }
}
