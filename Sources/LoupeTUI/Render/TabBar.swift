/// A row of tab titles, the selected one highlighted (ratatui's `Tabs`); it also says which tab a column falls
/// in, so a click on a title switches to it.
struct TabBar {
    let labels: [String]
    let selected: Int


    /// Each title's columns, from the bar's left edge.
    var spans: [Range<Int>] {
        var x = 1
        return labels.map { label in
            let width = DisplayWidth.of(label) + 2
            defer { x += width + 1 }
            return x..<(x + width)
        }
    }

    /// The tab drawn at `column`, if any.
    func tab(atColumn column: Int) -> Int? {
        spans.firstIndex { $0.contains(column) }
    }

    func render(in area: Rect, into buffer: inout Buffer, trailing: String? = nil) {
        buffer.fill(area, style: .tab)
        for (index, span) in spans.enumerated() {
            let style: Style = index == selected ? .activeTab : .tab
            buffer.write(" \(labels[index]) ", x: area.x + span.lowerBound, y: area.y,
                         maxWidth: area.maxX - area.x - span.lowerBound, style: style)
            if index + 1 < spans.count {
                buffer.write("│", x: area.x + span.upperBound, y: area.y, maxWidth: area.maxX - area.x - span.upperBound,
                             style: .tab)
            }
        }
        if let trailing, let end = spans.last?.upperBound, end + DisplayWidth.of(trailing) + 3 <= area.width {
            buffer.writeRightAligned(trailing + " ", maxX: area.maxX, y: area.y, style: .tab)
        }
    }
}
