import Loupe
/// The waterfall drawn to a width: a summary, a scale, one row per attempt, and a legend.
///
/// Rows and the scale never exceed `width` (they must not be wrapped); the summary and legend are ordinary text
/// the caller may wrap. Narrow widths drop the right column, then the labels, down to a one-cell track.
extension TimingWaterfall {
    func lines(width: Int) -> [StyledLine] {
        var summary: [StyledLine.Span] = [.init("total ", .dim), .init(Quantity.duration(total))]
        summary += [.init("  attempts ", .dim), .init(String(rows.count))]
        if backoff > 0 { summary += [.init("  backoff ", .dim), .init(Quantity.duration(backoff))] }
        guard !rows.isEmpty else {
            return [StyledLine(summary), .empty, StyledLine("No attempts recorded: nothing to draw.", style: .dim)]
        }
        // Beyond any terminal; keeps a caller's absurd width from allocating absurd rows.
        let width = min(max(1, width), 4096)
        let labels = rows.map { row in [StyledLine.Span("#\(row.number) ", .label), row.result] }
        let rights = rows.map(rightColumn)
        let labelWidth = labels.map { DisplayWidth.of(StyledLine($0).text) }.max() ?? 0
        let rightWidth = rights.map { DisplayWidth.of(StyledLine($0).text) }.max() ?? 0
        let showRight = labelWidth + 1 + Self.minimumTrack + 1 + rightWidth <= width
        let showLabels = showRight || labelWidth + 1 + Self.minimumTrack / 2 <= width
        let cells = width - (showLabels ? labelWidth + 1 : 0) - (showRight ? rightWidth + 1 : 0)
        // An empty axis (everything at the start) still gets a scale to draw ticks on.
        let scale = Double(cells) / max(total, 0.001)
        let prefix = showLabels ? String(repeating: " ", count: labelWidth + 1) : ""

        var lines = [StyledLine(summary), .empty]
        lines.append(StyledLine(prefix + scaleText(cells: cells), style: .dim))
        lines.append(StyledLine(prefix + axis(cells: cells), style: .dim))
        for (index, row) in rows.enumerated() {
            var spans: [StyledLine.Span] = []
            if showLabels {
                let label = StyledLine(labels[index]).text
                spans += labels[index] + [.init(String(repeating: " ", count: labelWidth - DisplayWidth.of(label) + 1))]
            }
            spans += WaterfallTrack.spans(row, cells: cells, scale: scale)
            if showRight { spans += [.init(" ")] + rights[index] }
            lines.append(StyledLine(spans).mergingRuns())
        }
        return lines + [.empty] + legend
    }

    /// Fewer cells than this and the right column gives its room to the track.
    static let minimumTrack = 8

    /// `450ms ✗`: the attempt's length and its marks.
    private func rightColumn(_ row: Row) -> [StyledLine.Span] {
        var spans = [StyledLine.Span(Quantity.duration(row.end - row.start))]
        for mark in row.marks { spans.append(.init(" " + mark.symbol, mark.style)) }
        return spans
    }

    /// `0` at the left, the total at the right, the half-way time in the middle, each where it fits.
    private func scaleText(cells: Int) -> String {
        var text = Array(repeating: Character(" "), count: cells)
        func place(_ label: String, at column: Int) -> Bool {
            let characters = Array(label)
            guard column >= 0, column + characters.count <= cells,
                  text[max(0, column - 1)..<min(cells, column + characters.count + 1)].allSatisfy({ $0 == " " })
            else { return false }
            text.replaceSubrange(column..<(column + characters.count), with: characters)
            return true
        }
        _ = place("0", at: 0)
        let end = Quantity.duration(total)
        _ = place(end, at: cells - end.count)
        let middle = Quantity.duration(total / 2)
        _ = place(middle, at: cells / 2 - middle.count / 2)
        return String(text)
    }

    private func axis(cells: Int) -> String {
        guard cells > 1 else { return "│" }
        var characters = Array(repeating: Character("─"), count: cells)
        characters[0] = "├"
        characters[cells - 1] = "┤"
        if cells > 4 { characters[cells / 2] = "┼" }
        return String(characters)
    }

    /// What each drawn symbol means; only marks that appear are listed.
    private var legend: [StyledLine] {
        var spans: [StyledLine.Span] = []
        func item(_ symbol: String, _ style: Style, _ meaning: String) {
            spans += [.init((spans.isEmpty ? "" : "  ") + symbol, style), .init(" " + meaning, .dim)]
        }
        var phases: [Phase] = [.send, .wait, .receive]
        if rows.contains(where: { $0.segments.contains { $0.phase == .untimed } }) { phases.append(.untimed) }
        for phase in phases { item(String(phase.fill), phase.style, phase.meaning) }
        if rows.contains(where: { $0.gapFrom != nil }) { item(String(WaterfallTrack.gap), .dim, "backoff") }
        for mark in Mark.allCases where rows.contains(where: { $0.marks.contains(mark) }) {
            item(mark.symbol, mark.style, mark.meaning)
        }
        return [StyledLine(spans)]
    }
}

extension TimingWaterfall.Phase {
    /// A whole cell of the phase: shades tell phases apart without colour.
    var fill: Character {
        switch self {
        case .send: "▒"
        case .wait: "░"
        case .receive: "█"
        case .untimed: "▓"
        }
    }

    var style: Style {
        switch self {
        case .send: .timingSend
        case .wait: .timingWait
        case .receive: .timingReceive
        case .untimed: .normal
        }
    }

    var meaning: String {
        switch self {
        case .send: "send"
        case .wait: "wait"
        case .receive: "receive"
        case .untimed: "no milestones"
        }
    }
}

extension TimingWaterfall.Mark {
    var symbol: String {
        switch self {
        case .error: "✗"
        case .shortCircuit: "⊘"
        case .unfinished: "…"
        case .badClock: "!"
        }
    }

    var style: Style {
        switch self {
        case .error, .shortCircuit, .badClock: .error
        case .unfinished: .dim
        }
    }

    var meaning: String {
        switch self {
        case .error: "error"
        case .shortCircuit: "short-circuited"
        case .unfinished: "unfinished"
        case .badClock: "clock skew"
        }
    }
}
